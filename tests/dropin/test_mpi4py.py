"""mpi4py under libpat_mpi (LD_PRELOAD): comm.Allgather on numpy arrays and
comm.allgather on Python objects, results checked; then proof that libpat ran
the calls, read through ctypes from the preloaded library (it counts exactly
the MPI_Allgather and MPI_Allgatherv calls the program made)."""
import ctypes
import sys

import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
failures = []
intercepted = 0  # MPI_Allgather and MPI_Allgatherv calls the program makes (through mpi4py)


def check(ok, what):
    if not ok:
        failures.append(what)


def block(r, n, dtype):
    return (np.arange(n) * (r + 1) + 7 * r).astype(dtype)


def numpy_cases(c):
    global intercepted
    P, r = c.Get_size(), c.Get_rank()
    for dtype in (np.float64, np.float32, np.int32, np.int64, np.uint8, np.complex128):
        for n in (0, 1, 7, 1000, 65536):
            send = block(r, n, dtype)
            recv = np.empty(n * P, dtype=dtype)
            c.Allgather(send, recv)
            intercepted += 1
            expect = np.concatenate([block(q, n, dtype) for q in range(P)])
            check(np.array_equal(recv, expect), f"Allgather {np.dtype(dtype).name} n={n} P={P}")
        # in place, and an explicit [buffer, count, MPI type] specification
        recv = np.zeros(5 * P, dtype=dtype)
        recv[5 * r:5 * r + 5] = block(r, 5, dtype)
        c.Allgather(MPI.IN_PLACE, recv)
        intercepted += 1
        check(np.array_equal(recv, np.concatenate([block(q, 5, dtype) for q in range(P)])),
              f"Allgather IN_PLACE {np.dtype(dtype).name} P={P}")
    send = np.full((3, 4), r, dtype=np.float64)
    recv = np.empty((P, 3, 4), dtype=np.float64)
    c.Allgather([send, 12, MPI.DOUBLE], [recv, 12, MPI.DOUBLE])
    intercepted += 1
    check(all((recv[q] == q).all() for q in range(P)), f"Allgather 2-D P={P}")


def objects_of(q):
    return [q, "x" * q, {"rank": q, "data": list(range(q))}, (q, 2.5 * q, None)]


def object_cases(c):
    global intercepted
    P, r = c.Get_size(), c.Get_rank()
    for k, obj in enumerate(objects_of(r)):
        # pickled; mpi4py all-gathers the sizes with MPI_Allgather, then the
        # pickles with MPI_Allgatherv
        got = c.allgather(obj)
        intercepted += 2
        check(got == [objects_of(q)[k] for q in range(P)], f"allgather {type(obj).__name__} P={P}: {got!r}")
    got = c.allgather(np.arange(r, dtype=np.int16))
    intercepted += 2
    check(all(np.array_equal(g, np.arange(q, dtype=np.int16)) for q, g in enumerate(got)), f"allgather ndarray P={P}")


numpy_cases(comm)
object_cases(comm)
sub = comm.Split(rank % 2, -rank)  # halves, reversed ranks
numpy_cases(sub)
object_cases(sub)

# proof of interposition: libpat is in the process and counted every call
lib = ctypes.CDLL(None)
try:
    get_stats, last_alg = lib.PAT_GetStats, lib.PAT_LastAlg
except AttributeError:
    get_stats = None
    failures.append("libpat is not loaded: was libpat_mpi preloaded?")
if get_stats:
    stats = (ctypes.c_longlong * 64)()  # PAT_Stats starts with `long long calls`
    check(get_stats(stats) == 0, "PAT_GetStats failed: libpat is not initialised")
    check(stats[0] == intercepted, f"libpat counted {stats[0]} all-gathers, the program made {intercepted}")
    last_alg.restype = ctypes.c_char_p
    last_alg.argtypes = [ctypes.c_void_p]
    alg = last_alg(MPI._handleof(comm)).decode()
    check(alg != "", "PAT_LastAlg(MPI_COMM_WORLD) is empty")
check(MPI.Query_thread() == MPI.THREAD_MULTIPLE, f"thread level {MPI.Query_thread()}")

sub.Free()
bad = comm.allreduce(len(failures), op=MPI.MAX)
for f in failures[:10]:
    print(f"FAIL world rank {rank}: {f}", file=sys.stderr)
if rank == 0:
    print(f"mpi4py drop-in, P={size}: {intercepted} all-gathers per rank, {'FAILED' if bad else 'passed'}")
sys.exit(1 if bad else 0)
