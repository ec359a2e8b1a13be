#!/usr/bin/env python3
"""README.md's list of what the drop-in defines, checked against src/dropin.

libpat_mpi takes over the MPI functions src/dropin/pat_mpi.c defines (`int
MPI_Name(...)`, and the persistent all-gathers under the name each MPI gives
them: MPI_Allgather_init on MPI 4, MPIX_Allgather_init on Open MPI 4.1), and
each of them from Fortran too: fortran_mpif.c (mpif.h and `use mpi`) and
fortran_f08.c (`use mpi_f08`).  README.md's section on the drop-in must name,
in backquotes, every one of those C names and no other MPI function; and each
C function must have both Fortran bindings, since README says so.

    python3 tests/tools/check_dropin_list.py [SOURCE_DIR]
    python3 tests/tools/check_dropin_list.py --self-test   # it catches a missing and an extra name
"""
import os
import re
import sys

import repo_check

SECTION = "## Unmodified programs: the drop-in libpat_mpi"
C_DEF = re.compile(r"^int\s+(MPIX?_[A-Z][a-z_]*)\s*\(", re.MULTILINE)
PERSISTENT_DEF = re.compile(r"^int\s+PERSISTENT_NAME\((\w+)\)\s*\(", re.MULTILINE)
MPIF_DEF = re.compile(r"FORTRAN_NAMES\(\s*(mpix?_\w+)\s*,")
F08_DEF = re.compile(r"F08_NAME\(\s*(mpix?_\w+?)_f08_\s*,")
# a function name in README: MPI_ or MPIX_, then a capital and lower case (MPI_COMM_WORLD is a constant)
README_NAME = re.compile(r"`(MPIX?_[A-Z][a-z][a-z_]*)`")


def defined(root):
    """The C names the drop-in defines, and the Fortran bindings (lower case, without MPIX's X)."""
    def read(name):
        with open(os.path.join(root, "src", "dropin", name), encoding="utf-8") as f:
            return f.read()
    c_text = read("pat_mpi.c")
    names = set(C_DEF.findall(c_text))
    for base in PERSISTENT_DEF.findall(c_text):
        names |= {"MPI_" + base, "MPIX_" + base}
    mpif = {n.replace("mpix_", "mpi_") for n in MPIF_DEF.findall(read("fortran_mpif.c"))}
    f08 = {n.replace("mpix_", "mpi_") for n in F08_DEF.findall(read("fortran_f08.c"))}
    return names, mpif, f08


def readme_names(root):
    with open(os.path.join(root, "README.md"), encoding="utf-8") as f:
        text = f.read()
    start = text.find(SECTION)
    if start < 0:
        return None
    end = text.find("\n## ", start + len(SECTION))
    return set(README_NAME.findall(text[start:end if end >= 0 else len(text)]))


def check(root):
    names, mpif, f08 = defined(root)
    listed = readme_names(root)
    if listed is None:
        return [f"README.md: no section \"{SECTION}\""]
    problems = [f"README.md: the drop-in defines `{n}` (src/dropin/pat_mpi.c), the list does not name it"
                for n in sorted(names - listed)]
    problems += [f"README.md: names `{n}`, which src/dropin/pat_mpi.c does not define" for n in sorted(listed - names)]
    for n in sorted(names):
        low = n.lower().replace("mpix_", "mpi_")
        if low not in mpif:
            problems.append(f"src/dropin/fortran_mpif.c: no mpif.h binding of {n} (README says each has one)")
        if low not in f08:
            problems.append(f"src/dropin/fortran_f08.c: no mpi_f08 binding of {n} (README says each has one)")
    return problems


def self_test():
    """A drop-in of three functions and READMEs that miss one, name one too many, or agree."""
    import tempfile
    c_text = ("int MPI_Init(int *argc, char ***argv) { return 0; }\n"
              "int MPI_Allgather(const void *s) { return 0; }\n"
              "int PERSISTENT_NAME(Allgather_init)(const void *s) { return 0; }\n"
              "static int helper(void) { return MPI_Comm_rank(0, 0); }\n")
    mpif = "FORTRAN_NAMES(mpi_init, MPI_INIT, (x), y)\nFORTRAN_NAMES(mpi_allgather, MPI_ALLGATHER, (x), y)\n" \
           "FORTRAN_NAMES(mpix_allgather_init, MPIX_ALLGATHER_INIT, (x), y)\n"
    f08 = "F08_NAME(mpi_init_f08_, (x), y)\nF08_NAME(mpi_allgather_f08_, (x), y)\n" \
          "F08_NAME(mpix_allgather_init_f08_, (x), y)\n"
    good = "It defines `MPI_Init`, `MPI_Allgather` and `MPI_Allgather_init` (`MPIX_Allgather_init`); `MPI_COMM_WORLD`.\n"
    cases = {
        "agrees": (good, 0),
        "misses one": (good.replace("`MPI_Allgather` and ", ""), 1),
        "names one too many": (good + "and `MPI_Barrier`\n", 1),
    }
    failed = 0
    for what, (listing, want) in cases.items():
        with tempfile.TemporaryDirectory() as root:
            os.makedirs(os.path.join(root, "src", "dropin"))
            for name, text in {"pat_mpi.c": c_text, "fortran_mpif.c": mpif, "fortran_f08.c": f08}.items():
                with open(os.path.join(root, "src", "dropin", name), "w") as f:
                    f.write(text)
            with open(os.path.join(root, "README.md"), "w") as f:
                f.write("# x\n\n" + SECTION + "\n\n" + listing + "\n## Settings\n\n`MPI_Barrier` elsewhere\n")
            found = check(root)
            if bool(found) != bool(want):
                print(f"self-test: README that {what}: {found or 'nothing reported'}")
                failed += 1
    if failed:
        return 1
    print(f"check_dropin_list self-test: all {len(cases)} cases right")
    return 0


def main():
    return repo_check.run(
        "check_dropin_list", check, self_test,
        lambda n: f"{n} problem(s)",
        lambda root: f"README.md names the drop-in's {len(defined(root)[0])} functions, each bound from Fortran too")


if __name__ == "__main__":
    sys.exit(main())
