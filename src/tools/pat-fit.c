/*
 * pat-fit: write the model file (v2) from a calibration: (alpha, beta)
 * fitted per algorithm, and the measured times themselves; or check the
 * fitting on synthetic timings.
 *
 *   pat-fit --in times.csv [--P 8] --out cluster.model [--metric ebar|runtime] [--made TEXT]
 *           [--min-bytes B] [--max-bytes B]
 *       times.csv: lines "alg,block_bytes,seconds[,gap|b2b]" (a header line
 *       is skipped), each a time measured on balanced arrivals with that
 *       algorithm (pat-calibrate), after a pause (gap, the default) or back
 *       to back (b2b: the file's "b2b" lines, not fitted).  Every
 *       algorithm with a schedule gets a fitted line (at least 2 sizes);
 *       native has no schedule, so it gets none.
 *       Every algorithm, native included, with at least 2 sizes gets its
 *       measured times ("P" and "time" lines), all of them: --min-bytes and
 *       --max-bytes choose the sizes of the fit only.  P is the CSV's
 *       ("# pat-calibrate, P=N") unless --P says it (they must agree).  With
 *       --metric runtime the times are not ē, so the file gets no time lines.
 *       Rows "link,<bytes>,<seconds>,pingpong" (pat-calibrate's ping-pong of
 *       two ranks alone on the network, one-way times) give the file's
 *       "link" line: the line through them (two sizes: exact; more: least
 *       squares on relative residuals, as the algorithms' fit weighs every
 *       size alike), alpha clamped to 0 like the algorithms' fit, a slope
 *       that is not > 0 rejected.  --min-bytes and --max-bytes do not apply
 *       to them.  Without link rows the file has no link line.
 *       Rows "reduce,<bytes>,<seconds>,local" (pat-calibrate's timing of
 *       MPI_Reduce_local, MPI_SUM of doubles) give the file's "gamma" line:
 *       the slope of the same kind of line through them, seconds per byte
 *       (its intercept, the call's own cost, is left out: an all-reduce's
 *       steps pay alpha for that).  Without reduce rows the file has no gamma
 *       line, and libpat uses its default.
 *       Exit status 0; 1 if some fit was rejected (an algorithm's, the
 *       link's or gamma's: the file is written all the same, without that line); 2 on
 *       a usage error, or when no algorithm could be fitted (no file).
 *
 *   pat-fit --synthetic [--P 8] [--alpha 50us] [--beta 8ns] [--noise 0.02] [--out FILE]
 *       makes times from the model itself with known per-algorithm
 *       parameters, adds noise and one outlier per algorithm, fits, compares,
 *       writes and reads back the model file (with those times as its
 *       measured table).  Exit status 0 if every parameter is recovered
 *       (alpha within 10%, beta within 5%) and the file round trips.
 *
 * The measuring side (timing runs with MPI) lives in the calibration
 * benchmark; this tool only needs the numbers.
 */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/fit.h"
#include "model/measured.h"
#include "tools/cli.h"
#include "pat.h"

#define MAXPTS 256

static void usage(FILE *f) {
  fprintf(f,
          "usage: pat-fit --in FILE.csv [--P N] --out FILE.model [--metric ebar|runtime] [--default ALG]\n"
          "               [--made TEXT] [--min-bytes B] [--max-bytes B]\n"
          "       pat-fit --synthetic [--P N] [--alpha T] [--beta T] [--noise X] [--out FILE.model]\n"
          "  --in        measured times: lines alg,block_bytes,seconds[,gap|b2b] (balanced arrivals; pat-calibrate)\n"
          "              and link,bytes,seconds,pingpong (one pair alone on the network: the \"link\" line)\n"
          "              and reduce,bytes,seconds,local (MPI_Reduce_local of doubles: the \"gamma\" line)\n"
          "  --P         processes the times were measured on (default: the CSV's \"P=N\" comment)\n"
          "  --metric    what was measured: ebar (mean elapsed time over ranks, default) or runtime\n"
          "  --default   algorithm whose fit is also the file's default line (default: ring, else the first)\n"
          "  --made      text for the file's \"made\" line\n"
          "  --min-bytes, --max-bytes  fit only the sizes in this range (the block sizes the\n"
          "              application will use; a Hockney line rarely fits 64 B and 2 MiB alike);\n"
          "              the file's measured times keep every size\n"
          "  --synthetic self-check on times made by the model with known parameters\n"
          "  --noise     relative noise of the synthetic times (default 0.02)\n"
          "times: seconds, or with s, ms, us, ns; sizes: bytes, with k, m, g = 2^10, 2^20, 2^30 (32k).\n");
}

static void die(const char *what, const char *arg) {
  fprintf(stderr, "pat-fit: %s%s\n", what, arg ? arg : "");
  exit(2);
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static double unoise(void) {
  uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return (double)(z >> 11) / 4503599627370496.0 - 1.0;
}

static void report(int alg, const pat_fit_result *fr, int rc) {
  if (rc) {
    printf("%-6s fit failed: %s\n", pat_algorithms[alg].name, fr->msg);
    return;
  }
  printf("%-6s alpha %.4g s  beta %.4g s/B  (%d points, %d down-weighted, rms %.2f%%, max %.2f%%, %d refinements)%s%s\n",
         pat_algorithms[alg].name, fr->alpha, fr->beta, fr->n, fr->n_down, 100 * fr->rel_rms, 100 * fr->rel_max,
         fr->refinements, fr->msg[0] ? "\n       note: " : "", fr->msg);
}

/* Algorithm number k of the synthetic check: its own parameters (as on a real
 * machine), times from the model with noise and one outlier, the fit; the fit
 * goes into mp.  Returns 1 if a parameter is not recovered. */
static int synthetic_alg(int alg, int k, int P, double alpha, double beta, double noise, int metric,
                         const double *m, pat_model_params *mp) {
  double a = alpha * (1 + 0.15 * k), b = beta * (1 - 0.07 * k), T[10];
  pat_build_args args = {.P = P, .self = PAT_ALL_RANKS}; /* balanced */
  pat_sched s;
  if (pat_build(alg, &s, &args)) die("cannot build ", pat_algorithms[alg].name);
  pat_model_params truth;
  pat_model_params_init(&truth, a, b);
  for (int i = 0; i < 10; i++) {
    pat_model_result r;
    memset(&r, 0, sizeof r);
    pat_model_replay(&s, NULL, &truth, m[i], &r);
    T[i] = (metric == PAT_FIT_RUNTIME ? r.r : r.ebar) * (1 + noise * unoise());
  }
  T[(k * 3 + 2) % 10] *= 2.0; /* an outlier */
  pat_sched_free(&s);
  for (int i = 0; i < 10; i++) pat_measured_add(&mp->measured, alg, m[i], T[i]);
  pat_fit_opts o = {metric, 0, 0};
  pat_fit_result fr;
  if (pat_fit_alg(alg, P, 0, 10, m, T, &o, &fr)) {
    printf("%-6s fit failed: %s\n", pat_algorithms[alg].name, fr.msg);
    return 1;
  }
  double ea = fabs(fr.alpha / a - 1), eb = fabs(fr.beta / b - 1);
  int ok = ea <= 0.10 && eb <= 0.05;
  printf("%-6s %12.4g %12.4g %12.4g %12.4g %7.2f%% %7.2f%% %s\n", pat_algorithms[alg].name, a, fr.alpha, b,
         fr.beta, 100 * ea, 100 * eb, ok ? "ok" : "OFF");
  mp->alg[alg].set = 1;
  mp->alg[alg].inter.alpha = fr.alpha;
  mp->alg[alg].inter.beta = fr.beta;
  return !ok;
}

/* The model file of the synthetic fits, formatted and read back unchanged. */
static int round_trip_ok(const pat_model_params *mp, char *text) {
  char err[512] = "";
  pat_model_params back;
  if (!text || pat_model_parse(text, "synthetic", &back, err, sizeof err) ||
      memcmp(back.alg, mp->alg, sizeof mp->alg) != 0 || memcmp(&back.measured, &mp->measured, sizeof mp->measured)) {
    printf("model file round trip FAILED %s\n", err);
    return 0;
  }
  printf("model file round trip: ok\n");
  return 1;
}

/* Fits times made by the model with known per-algorithm parameters, checks
 * the guard against falling times and the model file.  Returns 0 if all holds. */
static int synthetic(int P, double alpha, double beta, double noise, const char *out, int metric) {
  const int algs[] = {PAT_ALG_RING, PAT_ALG_NEX, PAT_ALG_RDB, PAT_ALG_BRUCK, PAT_ALG_LNBC};
  double m[10], T[10];
  for (int i = 0; i < 10; i++) m[i] = 1024.0 * pow(2.0, i * 12.0 / 9);
  pat_model_params mp;
  pat_model_params_init(&mp, alpha, beta);
  mp.measured.P = P;
  snprintf(mp.made, sizeof mp.made, "pat-fit --synthetic: P=%d, noise %g, one outlier per algorithm", P, noise);
  int bad = 0;
  printf("# synthetic: P=%d, 10 sizes 1 KiB..4 MiB, noise +-%g%%, one outlier (x2) per algorithm\n", P, 100 * noise);
  printf("%-6s %12s %12s %12s %12s %8s %8s\n", "alg", "alpha true", "alpha fit", "beta true", "beta fit", "err a",
         "err b");
  for (size_t k = 0; k < sizeof algs / sizeof *algs; k++)
    bad |= synthetic_alg(algs[k], (int)k, P, alpha, beta, noise, metric, m, &mp);
  /* the negative-slope guard */
  for (int i = 0; i < 10; i++) T[i] = 1e-2 * (1 - i * 0.05);
  pat_fit_result fr;
  int rc = pat_fit_alg(PAT_ALG_RING, P, 0, 10, m, T, NULL, &fr);
  printf("falling times: %s (%s)\n", rc == PAT_EFIT ? "rejected" : "ACCEPTED", fr.msg);
  bad |= rc != PAT_EFIT;
  char *text = pat_model_format(&mp);
  bad |= !round_trip_ok(&mp, text);
  if (out) {
    char err[512];
    if (pat_model_write(out, &mp, err, sizeof err)) die(err, NULL);
    printf("wrote %s\n", out);
  } else {
    printf("\n%s", text ? text : "");
  }
  free(text);
  printf("%s\n", bad ? "SELF-CHECK FAILED" : "self-check passed");
  return bad;
}

/* ---- options --------------------------------------------------------------- */

typedef struct fit_args {
  const char *in, *out, *made, *dflt;
  int P, synthetic, metric;
  double alpha, beta, noise, min_bytes, max_bytes;
} fit_args;

static const char *const metrics[] = {[PAT_FIT_EBAR] = "ebar", [PAT_FIT_RUNTIME] = "runtime"};

/* --min-bytes, --max-bytes: a byte size, kept as a double. */
static int bytes_option(cli_args *a, double *out, cli_error *err) {
  uint64_t v;
  if (cli_args_bytes(a, 0, UINT64_MAX, &v, err)) return -1;
  *out = (double)v;
  return 0;
}

static int parse_option(cli_args *a, void *opts, cli_error *err) {
  fit_args *f = opts;
  const char *v;
  if (cli_args_is(a, "--synthetic")) {
    f->synthetic = 1;
    return cli_args_flag(a, err);
  }
  if (cli_args_is(a, "--in")) return cli_args_text(a, &f->in, err);
  if (cli_args_is(a, "--out")) return cli_args_text(a, &f->out, err);
  if (cli_args_is(a, "--made")) return cli_args_text(a, &f->made, err);
  if (cli_args_is(a, "--default")) return cli_args_text(a, &f->dflt, err);
  if (cli_args_is(a, "--P")) return cli_args_int(a, 2, 4096, &f->P, err);
  if (cli_args_is(a, "--min-bytes")) return bytes_option(a, &f->min_bytes, err);
  if (cli_args_is(a, "--max-bytes")) return bytes_option(a, &f->max_bytes, err);
  if (cli_args_is(a, "--alpha")) return cli_args_time(a, CLI_S, &f->alpha, NULL, err);
  if (cli_args_is(a, "--beta")) return cli_args_time(a, CLI_S, &f->beta, NULL, err);
  if (cli_args_is(a, "--noise")) return cli_args_real(a, 0, 1, &f->noise, err);
  if (cli_args_is(a, "--metric"))
    return cli_args_text(a, &v, err) || cli_choice(a->opt, v, "metric", metrics, 2, &f->metric, err) ? -1 : 0;
  return cli_args_unknown(a, err);
}

/* Parses the command line into *f; exits after --help (0) or a bad option (2).
 * f->P stays 0 when --P is not given. */
static void parse_options(int argc, char **argv, fit_args *f) {
  *f = (fit_args){.P = 0, .metric = PAT_FIT_EBAR, .alpha = 50e-6, .beta = 8e-9, .noise = 0.02, .max_bytes = 1e300};
  cli_args_parse_or_exit(argc, argv, parse_option, f, "pat-fit", usage);
}

/* ---- measured times ---------------------------------------------------------- */

typedef struct measurements {
  double bytes[PAT_ALG_COUNT][MAXPTS], T[PAT_ALG_COUNT][MAXPTS]; /* the fit's points */
  int n[PAT_ALG_COUNT];
  pat_measured table; /* every time of the CSV, for the file's time lines */
  pat_measured b2b;   /* the rows of mode b2b, for its b2b lines */
  double link_bytes[MAXPTS], link_T[MAXPTS]; /* the ping-pong rows (link, mode pingpong) */
  int n_link;
  double reduce_bytes[MAXPTS], reduce_T[MAXPTS]; /* MPI_Reduce_local's rows (reduce, mode local) */
  int n_reduce;
  int csv_P;          /* P of the "# pat-calibrate, P=N" comment, 0 if none */
  char platform[160]; /* the "# platform" comment's signature (tools/platform.h), "" if none */
  int nodes;          /* the "# nodes N" comment: the nodes the calibration ran on, 0 if none */
  unsigned long long placement; /* the "# placement H" comment: which of its ranks shared a node, 0 if none */
  char comments[200]; /* how the times were made: carried into the model's "made" line */
} measurements;

/* A comment line "# text": its text appended to m->comments; P taken from
 * pat-calibrate's first line. */
static void add_comment(measurements *m, char *p) {
  p++;
  while (isspace((unsigned char)*p)) p++;
  p[strcspn(p, "\r\n")] = '\0';
  if (strncmp(p, "platform ", 9) == 0) { /* for the model file's own line, not its "made" text */
    snprintf(m->platform, sizeof m->platform, "%s", p + 9);
    return;
  }
  int nodes;
  if (sscanf(p, "nodes %d", &nodes) == 1 && nodes > 0) { /* for the model file's "nodes" line */
    m->nodes = nodes;
    return;
  }
  unsigned long long placement;
  if (sscanf(p, "placement %llx", &placement) == 1 && placement) { /* for its "placement" line */
    m->placement = placement;
    return;
  }
  int P;
  if (!m->csv_P && sscanf(p, "pat-calibrate, P=%d", &P) == 1 && P > 0) m->csv_P = P;
  size_t used = strlen(m->comments);
  if (*p && used + strlen(p) + 3 < sizeof m->comments)
    snprintf(m->comments + used, sizeof m->comments - used, "%s%s", used ? "; " : "", p);
}

/* One row into the measured table (any algorithm, any size).  Returns 0, or
 * 2 after saying what is wrong. */
static int add_to_table(pat_measured *table, const char *in, int lineno, int alg, double b, double t) {
  int rc = pat_measured_add(table, alg, b, t);
  if (rc == PAT_MEASURED_ADDED) return 0;
  fprintf(stderr, "pat-fit: %s:%d: ", in, lineno);
  if (rc == PAT_MEASURED_DUPLICATE)
    fprintf(stderr, "%s at %.0f bytes a second time (one calibration per file)\n", pat_algorithms[alg].name, b);
  else if (rc == PAT_MEASURED_FULL)
    fprintf(stderr, "more than %d sizes for %s (what a model file keeps)\n", PAT_MEASURED_MAX,
            pat_algorithms[alg].name);
  else
    fprintf(stderr, "block_bytes and seconds must be finite and > 0\n");
  return 2;
}

/* A row of a measurement that is not an algorithm's into its points: the
 * name and the mode go together (one without the other is a mistake, not an
 * unknown algorithm).  Returns 1 if the row was one (*rc: 0, or 2 after
 * saying what is wrong), 0 if not. */
static int take_point_row(const char *in, int lineno, const char *name, const char *mode, double b, double t,
                          const char *want_name, const char *want_mode, double *bytes, double *T, int *n, int *rc) {
  int is_name = strcmp(name, want_name) == 0, is_mode = strcmp(mode, want_mode) == 0;
  if (!is_name && !is_mode) return 0;
  *rc = 0;
  if (!is_name || !is_mode) {
    fprintf(stderr, "pat-fit: %s:%d: mode %s is for the %s rows only, and they need it\n", in, lineno, want_mode,
            want_name);
    *rc = 2;
  } else if (!(b > 0) || !(t > 0) || !isfinite(b) || !isfinite(t)) {
    fprintf(stderr, "pat-fit: %s:%d: %s bytes and seconds must be finite and > 0\n", in, lineno, want_name);
    *rc = 2;
  } else if (*n == MAXPTS) {
    die("too many points for ", name);
  } else {
    bytes[*n] = b;
    T[(*n)++] = t;
  }
  return 1;
}

/* The ping-pong's rows (link, pingpong) and MPI_Reduce_local's (reduce, local). */
static int take_measure_row(const char *in, int lineno, const char *name, const char *mode, double b, double t,
                            measurements *m, int *rc) {
  return take_point_row(in, lineno, name, mode, b, t, "link", "pingpong", m->link_bytes, m->link_T, &m->n_link, rc) ||
         take_point_row(in, lineno, name, mode, b, t, "reduce", "local", m->reduce_bytes, m->reduce_T, &m->n_reduce,
                        rc);
}

/* Reads "alg,block_bytes,seconds[,mode]" lines: every row into the measured
 * table (mode b2b: the back-to-back table); the sizes in [min, max] of
 * algorithms with a schedule, measured after a pause (mode gap, or none),
 * into the fit's points; the ping-pong rows (link, mode pingpong) into the
 * link's points.  Returns 0, or 2 after saying what is wrong. */
static int read_times(const char *in, double min_bytes, double max_bytes, measurements *m) {
  FILE *f = fopen(in, "r");
  if (!f) die("cannot open ", in);
  int lineno = 0, ndata = 0, rc = 0;
  char line[512];
  while (!rc && fgets(line, sizeof line, f)) {
    lineno++;
    char *p = line;
    while (isspace((unsigned char)*p)) p++;
    if (*p == '#') add_comment(m, p);
    if (!*p || *p == '#') continue;
    char name[32], mode[16] = "gap";
    double b, t;
    int fields = sscanf(p, "%31[^,],%lf,%lf,%15[a-z0-9]", name, &b, &t, mode);
    if (fields < 3 || (strcmp(mode, "gap") != 0 && strcmp(mode, "b2b") != 0 && strcmp(mode, "pingpong") != 0 &&
                       strcmp(mode, "local") != 0)) {
      if (!ndata && fields < 3) continue; /* the header line */
      fprintf(stderr,
              "pat-fit: %s:%d: expected alg,block_bytes,seconds[,gap|b2b], link,bytes,seconds,pingpong or "
              "reduce,bytes,seconds,local\n",
              in, lineno);
      rc = 2;
      break;
    }
    ndata++;
    if (take_measure_row(in, lineno, name, mode, b, t, m, &rc)) continue;
    int alg = pat_alg_by_name(name);
    if (alg < 0) {
      fprintf(stderr, "pat-fit: %s:%d: unknown algorithm \"%s\"\n", in, lineno, name);
      rc = 2;
      break;
    }
    int b2b = strcmp(mode, "b2b") == 0;
    rc = add_to_table(b2b ? &m->b2b : &m->table, in, lineno, alg, b, t);
    if (rc || b2b || !pat_algorithms[alg].build) continue; /* native: measured times only, no line to fit */
    if (b < min_bytes || b > max_bytes) continue;   /* outside --min-bytes/--max-bytes */
    if (m->n[alg] == MAXPTS) die("too many points for ", name);
    m->bytes[alg][m->n[alg]] = b;
    m->T[alg][m->n[alg]++] = t;
  }
  fclose(f);
  return rc;
}

/* The P of the calibration: --P, or the CSV's; they must agree.  Exits with
 * a message when neither says or they differ. */
static int calibration_P(const fit_args *a, const measurements *m) {
  if (a->P && m->csv_P && a->P != m->csv_P) {
    fprintf(stderr, "pat-fit: --P %d, but %s was measured on P=%d\n", a->P, a->in, m->csv_P);
    exit(2);
  }
  if (!a->P && !m->csv_P) die("--P is needed (the CSV does not say how many processes it was measured on)", NULL);
  return a->P ? a->P : m->csv_P;
}

/* The file's measured times: the CSV's, for P processes, without the
 * algorithms measured at one size only (nothing to extend above it); none
 * with --metric runtime (the time lines are e bar). */
static void keep_table(const fit_args *a, int P, const measurements *m, pat_model_params *mp) {
  if (a->metric != PAT_FIT_EBAR) {
    printf("measured times: none in the file (--metric runtime: time lines hold e bar)\n");
    return;
  }
  mp->measured = m->table;
  mp->measured.P = P;
  int algs = 0, nsizes = 0;
  double lo = INFINITY, hi = 0;
  for (int alg = 0; alg < PAT_ALG_COUNT; alg++) {
    pat_measured_alg *t = &mp->measured.alg[alg];
    if (t->n == 1) {
      printf("measured times: %s has one size only; left out\n", pat_algorithms[alg].name);
      t->n = 0;
    }
    if (!t->n) continue;
    algs++;
    nsizes = t->n > nsizes ? t->n : nsizes;
    lo = fmin(lo, t->bytes[0]);
    hi = fmax(hi, t->bytes[t->n - 1]);
  }
  if (!algs) mp->measured.P = 0;
  else printf("measured times: P=%d, %d algorithms, up to %d sizes %.0f..%.0f B\n", P, algs, nsizes, lo, hi);
  /* back to back: the algorithms with at least 2 sizes, beside a table */
  mp->b2b = m->b2b;
  int b2b_algs = 0;
  for (int alg = 0; alg < PAT_ALG_COUNT; alg++) {
    if (mp->b2b.alg[alg].n == 1) mp->b2b.alg[alg].n = 0;
    b2b_algs += mp->b2b.alg[alg].n > 0;
  }
  mp->b2b.P = algs && b2b_algs ? P : 0;
  if (mp->b2b.P) printf("measured back to back: %d algorithms\n", b2b_algs);
}

/* Fits every measured algorithm into mp; returns the first fitted (-1: none)
 * and sets *failed if a fit was rejected. */
static int fit_all(const fit_args *a, int P, const measurements *m, pat_model_params *mp, int *failed) {
  int first = -1;
  *failed = 0;
  for (int alg = 0; alg < PAT_ALG_COUNT; alg++) {
    if (!m->n[alg]) continue;
    pat_fit_opts o = {a->metric, 0, 0};
    pat_fit_result fr;
    int rc = pat_fit_alg(alg, P, 0, m->n[alg], m->bytes[alg], m->T[alg], &o, &fr);
    report(alg, &fr, rc);
    if (rc) {
      *failed = 1;
      continue;
    }
    mp->alg[alg].set = 1;
    mp->alg[alg].inter.alpha = fr.alpha;
    mp->alg[alg].inter.beta = fr.beta;
    if (first < 0) first = alg;
  }
  return first;
}

/* The link line from the ping-pong rows: T = alpha + beta * bytes through
 * them (pat_fit_linear with c1 = 1, c2 = bytes; a huge Huber threshold
 * makes it plain least squares, exact through two points: a ping-pong's
 * few sizes are too few to tell an outlier).  Returns 1 if there were rows
 * but no acceptable line. */
static int fit_link(const measurements *m, pat_model_params *mp) {
  if (!m->n_link) return 0;
  pat_fit_result fr;
  int rc = pat_fit_line(m->n_link, m->link_bytes, m->link_T, &fr);
  if (rc) {
    printf("link   fit failed: %s; no link line\n", fr.msg);
    return 1;
  }
  printf("link   alpha %.4g s  beta %.4g s/B  (%d ping-pong points, one pair alone on the network)%s%s\n", fr.alpha,
         fr.beta, fr.n, fr.msg[0] ? "\n       note: " : "", fr.msg);
  mp->link_set = 1;
  mp->link.alpha = fr.alpha;
  mp->link.beta = fr.beta;
  return 0;
}

/* The gamma line from MPI_Reduce_local's rows: the slope of the line
 * through them (pat_fit_line).  Returns 1 if there were rows but no
 * acceptable slope. */
static int fit_gamma(const measurements *m, pat_model_params *mp) {
  if (!m->n_reduce) {
    printf("gamma  none: no reduce rows; libpat charges a reduction's combinations the default %s s/B\n",
           PAT_MODEL_GAMMA_TEXT);
    return 0;
  }
  pat_fit_result fr;
  int rc = pat_fit_line(m->n_reduce, m->reduce_bytes, m->reduce_T, &fr);
  if (rc) {
    printf("gamma  fit failed: %s; no gamma line\n", fr.msg);
    return 1;
  }
  printf("gamma  %.4g s/B (%.2f GB/s)  (%d sizes of MPI_Reduce_local, MPI_SUM of doubles; %.3g s a call)\n", fr.beta,
         1e-9 / fr.beta, fr.n, fr.alpha);
  mp->gamma_set = 1;
  mp->gamma = fr.beta;
  return 0;
}

/* Fits the measured times and writes the model file with them; the exit
 * status. */
static int fit_measured(const fit_args *a) {
  static measurements m;
  int rc = read_times(a->in, a->min_bytes, a->max_bytes, &m);
  if (rc) return rc;
  int P = calibration_P(a, &m);
  pat_model_params mp;
  pat_model_params_init(&mp, 0, 0);
  mp.dflt.set = 0;
  snprintf(mp.made, sizeof mp.made, "pat-fit from %s: P=%d, metric %s%s%s%s%s", a->in, P,
           a->metric == PAT_FIT_EBAR ? "ebar" : "runtime", a->made ? "; " : "", a->made ? a->made : "",
           m.comments[0] ? "; " : "", m.comments);
  /* where it comes from, for pat_info's warning when another libpat or platform reads it */
  snprintf(mp.libpat_version, sizeof mp.libpat_version, "%d.%d.%d", PAT_VERSION_MAJOR, PAT_VERSION_MINOR,
           PAT_VERSION_PATCH);
  snprintf(mp.platform, sizeof mp.platform, "%s", m.platform);
  mp.calib_nodes = m.nodes;
  mp.calib_placement = m.placement;
  int failed, first = fit_all(a, P, &m, &mp, &failed);
  if (first < 0) die("no algorithm could be fitted", NULL);
  int want = a->dflt ? pat_alg_by_name(a->dflt) : PAT_ALG_RING;
  int d = want >= 0 && mp.alg[want].set ? want : first;
  mp.dflt = mp.alg[d];
  keep_table(a, P, &m, &mp);
  failed |= fit_link(&m, &mp);
  failed |= fit_gamma(&m, &mp);
  char err[512];
  if (pat_model_write(a->out, &mp, err, sizeof err)) die(err, NULL);
  printf("wrote %s (default = %s)%s\n", a->out, pat_algorithms[d].name, failed ? "; some fits were rejected" : "");
  return failed;
}

int main(int argc, char **argv) {
  fit_args a;
  parse_options(argc, argv, &a);
  printf("#");
  for (int i = 0; i < argc; i++) printf(" %s", argv[i]);
  printf("\n");
  if (a.synthetic) return synthetic(a.P ? a.P : 8, a.alpha, a.beta, a.noise, a.out, a.metric);
  if (!a.in || !a.out) {
    usage(stderr);
    return 2;
  }
  return fit_measured(&a);
}
