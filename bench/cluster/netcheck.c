/* netcheck: validation of the emulated cluster (bench/cluster/).
 *
 * Plain MPI, no libpat.  Two measurements:
 *
 *  ping-pong  rank 0 <-> rank 1, messages of --size bytes (default 1 MiB).
 *             achieved rate = 2 * size * 8 * iters / total round-trip time,
 *             compared with the configured link rate (target >= 0.85).
 *             A short 8-byte ping-pong gives the one-way latency alpha.
 *
 *  ring       a ring all-gather written with MPI_Sendrecv: in step s every
 *             rank sends block (rank - s) mod P to rank+1 and receives block
 *             (rank - s - 1) mod P from rank-1; P-1 steps, all links busy.
 *             time = max over ranks of one call (after a barrier), compared
 *             with the ideal (P-1)*tau, tau = block * 8 / rate (target <= 2),
 *             and with (P-1)*(alpha + tau).
 *
 *  gather     (only with --gather) incast: ranks 1..P-1 send one block each
 *             to rank 0 at once, as a linear gather does; all of it has to
 *             come through rank 0's one downlink, so the ideal is again
 *             (P-1)*tau.  No target; it shows whether the link queues drop
 *             (a drop that ends in a TCP timeout costs 200 ms or more).
 *
 * The configured rate comes from --rate or from PAT_CLUSTER_RATE_BITS, which
 * pat-cluster run exports.  Exit status: 0 when every check holds (or with
 * --no-check), 1 when a check fails, 2 on bad usage.
 */
#include <mpi.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/cli.h"

typedef struct options {
  double rate_bits;   /* configured link rate, bit/s; 0 = unknown */
  const char *rate_from;
  int do_pingpong, do_ring, do_gather, check;
  size_t size;        /* ping-pong message bytes */
  int pp_iters, pp_warmup;
  size_t block;       /* ring block bytes */
  int ring_iters, ring_warmup;
  double min_pp_ratio, max_pp_ratio, max_ring_ratio;
} options;

static void usage(FILE *f) {
  fprintf(f,
    "usage: netcheck [--pingpong] [--ring] [--gather] [options]\n"
    "  (default: --pingpong --ring)\n"
    "  --rate R            configured link rate: 1gbit, 500mbit, 1e9 (bit/s);\n"
    "                      default: $PAT_CLUSTER_RATE_BITS (set by pat-cluster run)\n"
    "  --size B            ping-pong message size (default 1M; suffixes K M G = 2^10.., optional B)\n"
    "  --iters N           ping-pong round trips measured (default 20)\n"
    "  --warmup N          ping-pong round trips not measured (default 3)\n"
    "  --block B           ring block size per rank (default 512K)\n"
    "  --ring-iters N      ring all-gathers measured (default 10)\n"
    "  --ring-warmup N     ring all-gathers not measured (default 2)\n"
    "                      (--gather uses --block, --ring-iters, --ring-warmup too)\n"
    "  --min-pp-ratio X    ping-pong check: achieved/configured >= X (default 0.85)\n"
    "  --max-pp-ratio X    ping-pong check: achieved/configured <= X (default 1.10;\n"
    "                      catches a link that is not rate-limited)\n"
    "  --max-ring-ratio X  ring check: time / ((P-1) tau) <= X (default 2.0)\n"
    "  --no-check          report only; exit 0 whatever the numbers\n");
}

/* A message size: bytes (1M, 512K, 64KiB), at most what an MPI count holds. */
static int size_option(cli_args *a, size_t *out, cli_error *err) {
  uint64_t v;
  if (cli_args_bytes(a, 1, 2147483647, &v, err)) return -1;
  *out = (size_t)v;
  return 0;
}

/* The configured rate: tc-style ("1gbit", "500mbit") or a bare number in bit/s. */
static int rate_option(cli_args *a, options *o, cli_error *err) {
  const char *v;
  if (cli_args_text(a, &v, err) || cli_rate(a->opt, v, &o->rate_bits, err)) return -1;
  o->rate_from = "--rate";
  return 0;
}

static int flag_option(cli_args *a, options *o, cli_error *err) {
  if (cli_args_is(a, "--pingpong")) o->do_pingpong = 1;
  else if (cli_args_is(a, "--ring")) o->do_ring = 1;
  else if (cli_args_is(a, "--gather")) o->do_gather = 1;
  else o->check = 0; /* --no-check */
  return cli_args_flag(a, err);
}

static int parse_option(cli_args *a, void *opts, cli_error *err) {
  options *o = opts;
  if (cli_args_is(a, "--pingpong|--ring|--gather|--no-check")) return flag_option(a, o, err);
  if (cli_args_is(a, "--rate")) return rate_option(a, o, err);
  if (cli_args_is(a, "--size")) return size_option(a, &o->size, err);
  if (cli_args_is(a, "--block")) return size_option(a, &o->block, err);
  if (cli_args_is(a, "--iters")) return cli_args_int(a, 1, 1000000000, &o->pp_iters, err);
  if (cli_args_is(a, "--warmup")) return cli_args_int(a, 0, 1000000000, &o->pp_warmup, err);
  if (cli_args_is(a, "--ring-iters")) return cli_args_int(a, 1, 1000000000, &o->ring_iters, err);
  if (cli_args_is(a, "--ring-warmup")) return cli_args_int(a, 0, 1000000000, &o->ring_warmup, err);
  if (cli_args_is(a, "--min-pp-ratio")) return cli_args_real(a, 0, INFINITY, &o->min_pp_ratio, err);
  if (cli_args_is(a, "--max-pp-ratio")) return cli_args_real(a, 0, INFINITY, &o->max_pp_ratio, err);
  if (cli_args_is(a, "--max-ring-ratio")) return cli_args_real(a, 0, INFINITY, &o->max_ring_ratio, err);
  return cli_args_unknown(a, err);
}

/* The options: 0, 1 for --help, or -1 with a message in *err. */
static int parse_args(int argc, char **argv, options *o, cli_error *err) {
  memset(o, 0, sizeof *o);
  o->size = 1 << 20;
  o->pp_iters = 20;
  o->pp_warmup = 3;
  o->block = 512 * 1024;
  o->ring_iters = 10;
  o->ring_warmup = 2;
  o->min_pp_ratio = 0.85;
  o->max_pp_ratio = 1.10;
  o->max_ring_ratio = 2.0;
  o->check = 1;
  int rc = cli_args_parse(argc, argv, parse_option, o, err);
  if (rc) return rc;
  if (!o->do_pingpong && !o->do_ring && !o->do_gather) o->do_pingpong = o->do_ring = 1;
  const char *env = getenv("PAT_CLUSTER_RATE_BITS");
  if (o->rate_bits <= 0 && env && cli_rate("PAT_CLUSTER_RATE_BITS", env, &o->rate_bits, NULL) == 0)
    o->rate_from = "PAT_CLUSTER_RATE_BITS";
  return 0;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* One ping-pong loop between ranks 0 and 1; rank 0 stores each round trip. */
static void pingpong(char *buf, size_t size, int n, double *rtt, int rank) {
  for (int i = 0; i < n; i++) {
    double t0 = MPI_Wtime();
    if (rank == 0) {
      MPI_Send(buf, (int)size, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
      MPI_Recv(buf, (int)size, MPI_BYTE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      MPI_Recv(buf, (int)size, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf, (int)size, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
    }
    if (rtt) rtt[i] = MPI_Wtime() - t0;
  }
}

/* Returns 1 when the checks it made hold. */
static int run_pingpong(const options *o, int rank, int size, double *alpha_out) {
  int ok = 1;
  *alpha_out = 0;
  if (size < 2) {
    if (rank == 0) printf("pingpong: skipped, needs 2 ranks\n");
    return 1;
  }
  char *buf = malloc(o->size > 8 ? o->size : 8);
  memset(buf, rank + 1, o->size > 8 ? o->size : 8);
  const int nlat = 200;
  double *lat = calloc(nlat, sizeof *lat);
  double *rtt = calloc(o->pp_iters, sizeof *rtt);

  MPI_Barrier(MPI_COMM_WORLD);
  pingpong(buf, 8, 20, NULL, rank);
  pingpong(buf, 8, nlat, lat, rank);
  pingpong(buf, o->size, o->pp_warmup, NULL, rank);
  pingpong(buf, o->size, o->pp_iters, rtt, rank);
  MPI_Barrier(MPI_COMM_WORLD);

  if (rank == 0) {
    double alpha = median(lat, nlat) / 2;
    double total = 0;
    for (int i = 0; i < o->pp_iters; i++) total += rtt[i];
    double rate = 2.0 * o->size * 8 * o->pp_iters / total;
    double med = median(rtt, o->pp_iters);
    double best = rtt[0], worst = rtt[o->pp_iters - 1];
    printf("latency: 8 B ping-pong, %d round trips: one-way alpha (median rtt/2) = %.1f us\n",
           nlat, alpha * 1e6);
    printf("pingpong: size=%zu B iters=%d rtt_mean=%.3f ms rtt_median=%.3f ms rtt_min=%.3f ms"
           " rtt_max=%.3f ms\n", o->size, o->pp_iters, total / o->pp_iters * 1e3, med * 1e3,
           best * 1e3, worst * 1e3);
    printf("pingpong: rate_mean=%.1f Mbit/s rate_median=%.1f Mbit/s rate_best=%.1f Mbit/s\n",
           rate / 1e6, 2.0 * o->size * 8 / med / 1e6, 2.0 * o->size * 8 / best / 1e6);
    if (o->rate_bits > 0) {
      double ratio = rate / o->rate_bits;
      int pass = ratio >= o->min_pp_ratio && ratio <= o->max_pp_ratio;
      printf("pingpong: configured=%.1f Mbit/s achieved/configured=%.3f target=[%.2f, %.2f] %s\n",
             o->rate_bits / 1e6, ratio, o->min_pp_ratio, o->max_pp_ratio, pass ? "PASS" : "FAIL");
      ok = pass;
    }
    *alpha_out = alpha;
  }
  free(rtt);
  free(lat);
  free(buf);
  MPI_Bcast(alpha_out, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return ok;
}

static unsigned char block_byte(int owner, size_t k) {
  return (unsigned char)(owner * 31 + k * 7 + 1);
}

/* Ring all-gather with MPI_Sendrecv into buf (P blocks of `block` bytes). */
static void ring_allgather(unsigned char *buf, size_t block, int rank, int p) {
  int right = (rank + 1) % p, left = (rank - 1 + p) % p;
  for (int s = 0; s < p - 1; s++) {
    int sb = ((rank - s) % p + p) % p;
    int rb = ((rank - s - 1) % p + p) % p;
    MPI_Sendrecv(buf + (size_t)sb * block, (int)block, MPI_BYTE, right, 7,
                 buf + (size_t)rb * block, (int)block, MPI_BYTE, left, 7,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
}

static int run_ring(const options *o, int rank, int p, double alpha) {
  if (p < 2) {
    if (rank == 0) printf("ring: skipped, needs 2 ranks\n");
    return 1;
  }
  size_t total = o->block * (size_t)p;
  unsigned char *buf = malloc(total);
  int n = o->ring_warmup + o->ring_iters;
  double *t = calloc(n, sizeof *t);
  long bad = 0;
  for (int it = 0; it < n; it++) {
    memset(buf, 0, total);
    for (size_t k = 0; k < o->block; k++) buf[(size_t)rank * o->block + k] = block_byte(rank, k);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    ring_allgather(buf, o->block, rank, p);
    double dt = MPI_Wtime() - t0;
    MPI_Allreduce(&dt, &t[it], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    for (int j = 0; j < p; j++)
      for (size_t k = 0; k < o->block; k += 4093)
        if (buf[(size_t)j * o->block + k] != block_byte(j, k)) { bad++; break; }
  }
  long badsum = 0;
  MPI_Reduce(&bad, &badsum, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  int ok = 1;
  if (rank == 0) {
    double *m = t + o->ring_warmup;
    int k = o->ring_iters;
    double sum = 0, mn = m[0];
    for (int i = 0; i < k; i++) { sum += m[i]; if (m[i] < mn) mn = m[i]; }
    double mean = sum / k, med = median(m, k);
    printf("ring: P=%d block=%zu B iters=%d time_mean=%.3f ms time_median=%.3f ms time_min=%.3f ms"
           " data=%s\n", p, o->block, k, mean * 1e3, med * 1e3, mn * 1e3,
           badsum ? "WRONG" : "correct");
    if (o->rate_bits > 0) {
      double tau = o->block * 8.0 / o->rate_bits;
      double ideal = (p - 1) * tau, ideal_a = (p - 1) * (tau + alpha);
      double ratio = mean / ideal;
      int pass = ratio <= o->max_ring_ratio && !badsum;
      printf("ring: tau=%.3f ms ideal (P-1)tau=%.3f ms ideal (P-1)(alpha+tau)=%.3f ms\n",
             tau * 1e3, ideal * 1e3, ideal_a * 1e3);
      printf("ring: mean/((P-1)tau)=%.3f median/((P-1)tau)=%.3f mean/((P-1)(alpha+tau))=%.3f"
             " target<=%.2f %s\n", ratio, med / ideal, mean / ideal_a, o->max_ring_ratio,
             pass ? "PASS" : "FAIL");
      ok = pass;
    } else if (badsum) {
      ok = 0;
    }
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  free(t);
  free(buf);
  return ok;
}

/* Linear gather to rank 0, every sender at once (incast); report only. */
static void run_gather(const options *o, int rank, int p) {
  if (p < 2) return;
  unsigned char *buf = malloc(o->block * (size_t)p);
  memset(buf, rank, o->block * (size_t)p);
  int n = o->ring_warmup + o->ring_iters;
  double *t = calloc(n, sizeof *t);
  MPI_Request *req = calloc(p, sizeof *req);
  for (int it = 0; it < n; it++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (rank == 0) {
      for (int j = 1; j < p; j++)
        MPI_Irecv(buf + (size_t)j * o->block, (int)o->block, MPI_BYTE, j, 9, MPI_COMM_WORLD, &req[j - 1]);
      MPI_Waitall(p - 1, req, MPI_STATUSES_IGNORE);
    } else {
      MPI_Send(buf, (int)o->block, MPI_BYTE, 0, 9, MPI_COMM_WORLD);
    }
    double dt = MPI_Wtime() - t0;
    MPI_Allreduce(&dt, &t[it], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  }
  if (rank == 0) {
    double *m = t + o->ring_warmup, sum = 0, mx = 0;
    int k = o->ring_iters;
    for (int i = 0; i < k; i++) { sum += m[i]; if (m[i] > mx) mx = m[i]; }
    double mean = sum / k, med = median(m, k);
    printf("gather: P=%d block=%zu B iters=%d time_mean=%.3f ms time_median=%.3f ms time_max=%.3f ms\n",
           p, o->block, k, mean * 1e3, med * 1e3, mx * 1e3);
    if (o->rate_bits > 0) {
      double ideal = (p - 1) * (o->block * 8.0 / o->rate_bits);
      printf("gather: ideal (P-1)tau=%.3f ms mean/ideal=%.3f median/ideal=%.3f max/ideal=%.3f (report only)\n",
             ideal * 1e3, mean / ideal, med / ideal, mx / ideal);
    }
  }
  free(req);
  free(t);
  free(buf);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, p;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);

  options o;
  cli_error err;
  int pr = parse_args(argc, argv, &o, &err);
  if (pr != 0) {
    if (pr < 0 && rank == 0) fprintf(stderr, "netcheck: %s\n", err.text);
    if (rank == 0) usage(pr < 0 ? stderr : stdout);
    MPI_Finalize();
    return pr < 0 ? 2 : 0;
  }

  char name[MPI_MAX_PROCESSOR_NAME] = {0};
  int len;
  MPI_Get_processor_name(name, &len);
  char *names = rank == 0 ? malloc((size_t)p * MPI_MAX_PROCESSOR_NAME) : NULL;
  MPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0,
             MPI_COMM_WORLD);
  if (rank == 0) {
    printf("netcheck: command:");
    for (int i = 0; i < argc; i++) printf(" %s", argv[i]);
    printf("\nnetcheck: P=%d hosts:", p);
    for (int i = 0; i < p; i++) printf(" %s", names + (size_t)i * MPI_MAX_PROCESSOR_NAME);
    printf("\n");
    if (o.rate_bits > 0)
      printf("netcheck: configured rate %.1f Mbit/s (from %s)\n", o.rate_bits / 1e6, o.rate_from);
    else
      printf("netcheck: configured rate unknown (no --rate, no PAT_CLUSTER_RATE_BITS): no ratios\n");
    fflush(stdout);
    free(names);
  }

  int ok = 1;
  double alpha = 0;
  if (o.do_pingpong) ok &= run_pingpong(&o, rank, p, &alpha);
  if (rank == 0) fflush(stdout);
  if (o.do_ring) ok &= run_ring(&o, rank, p, alpha);
  if (rank == 0) fflush(stdout);
  if (o.do_gather) run_gather(&o, rank, p);
  if (rank == 0) {
    printf("netcheck: %s\n", ok ? "all checks PASS" : "some check FAILED");
    fflush(stdout);
  }
  MPI_Finalize();
  return (!o.check || ok) ? 0 : 1;
}
