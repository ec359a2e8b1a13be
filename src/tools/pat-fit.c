/*
 * pat-fit: fit (alpha, beta) per algorithm from measured times and write a
 * model file; or check the fitting on synthetic timings.
 *
 *   pat-fit --in times.csv --P 8 --out cluster.model [--metric ebar|runtime] [--made TEXT]
 *       times.csv: lines "alg,block_bytes,seconds" (a header line is skipped),
 *       each a time measured on balanced arrivals with that algorithm; at
 *       least 2 sizes per algorithm (~10 log-spaced sizes are best).
 *
 *   pat-fit --synthetic [--P 8] [--alpha 50us] [--beta 8ns] [--noise 0.02] [--out FILE]
 *       makes times from the model itself with known per-algorithm
 *       parameters, adds noise and one outlier per algorithm, fits, compares,
 *       writes and reads back the model file.  Exit status 0 if every
 *       parameter is recovered (alpha within 10%, beta within 5%).
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

#include "model/fit.h"
#include "tools/cli.h"

#define MAXPTS 256

static void usage(FILE *f) {
  fprintf(f,
          "usage: pat-fit --in FILE.csv --P N --out FILE.model [--metric ebar|runtime] [--default ALG] [--made TEXT]\n"
          "       pat-fit --synthetic [--P N] [--alpha T] [--beta T] [--noise X] [--out FILE.model]\n"
          "  --in        measured times: lines alg,block_bytes,seconds (balanced arrivals)\n"
          "  --P         processes the times were measured on\n"
          "  --metric    what was measured: ebar (mean elapsed time over ranks, default) or runtime\n"
          "  --default   algorithm whose fit is also the file's default line (default: ring, else the first)\n"
          "  --made      text for the file's \"made\" line\n"
          "  --min-bytes, --max-bytes  fit only the sizes in this range (the block sizes the\n"
          "              application will use; a Hockney line rarely fits 64 B and 2 MiB alike)\n"
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
      memcmp(back.alg, mp->alg, sizeof mp->alg) != 0) {
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

static int parse_option(cli_args *a, fit_args *f, cli_error *err) {
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

/* Parses the command line into *f; exits after --help (0) or a bad option (2). */
static void parse_options(int argc, char **argv, fit_args *f) {
  *f = (fit_args){.P = 8, .metric = PAT_FIT_EBAR, .alpha = 50e-6, .beta = 8e-9, .noise = 0.02, .max_bytes = 1e300};
  cli_args a;
  cli_error err;
  cli_args_init(&a, argc, argv);
  while (cli_args_next(&a)) {
    if (cli_args_is(&a, "-h|--help")) {
      usage(stdout);
      exit(0);
    }
    if (parse_option(&a, f, &err)) die(err.text, NULL);
  }
}

/* ---- measured times ---------------------------------------------------------- */

typedef struct measurements {
  double bytes[PAT_ALG_COUNT][MAXPTS], T[PAT_ALG_COUNT][MAXPTS];
  int n[PAT_ALG_COUNT];
  char comments[200]; /* how the times were made: carried into the model's "made" line */
} measurements;

/* A comment line "# text": its text appended to m->comments. */
static void add_comment(measurements *m, char *p) {
  p++;
  while (isspace((unsigned char)*p)) p++;
  p[strcspn(p, "\r\n")] = '\0';
  size_t used = strlen(m->comments);
  if (*p && used + strlen(p) + 3 < sizeof m->comments)
    snprintf(m->comments + used, sizeof m->comments - used, "%s%s", used ? "; " : "", p);
}

/* Reads "alg,block_bytes,seconds" lines, keeping the sizes in [min, max]
 * of algorithms with a schedule.  Returns 0, or 2 after saying what is wrong. */
static int read_times(const char *in, double min_bytes, double max_bytes, measurements *m) {
  FILE *f = fopen(in, "r");
  if (!f) die("cannot open ", in);
  int lineno = 0, ndata = 0, skipped_native = 0;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    lineno++;
    char *p = line;
    while (isspace((unsigned char)*p)) p++;
    if (*p == '#') add_comment(m, p);
    if (!*p || *p == '#') continue;
    char name[32];
    double b, t;
    if (sscanf(p, "%31[^,],%lf,%lf", name, &b, &t) != 3) {
      if (!ndata) continue; /* the header line */
      fprintf(stderr, "pat-fit: %s:%d: expected alg,block_bytes,seconds\n", in, lineno);
      return 2;
    }
    ndata++;
    int alg = pat_alg_by_name(name);
    if (alg < 0) {
      fprintf(stderr, "pat-fit: %s:%d: unknown algorithm \"%s\"\n", in, lineno, name);
      return 2;
    }
    if (!pat_algorithms[alg].build) {
      if (!skipped_native++) fprintf(stderr, "pat-fit: %s has no schedule to replay: its times are ignored\n", name);
      continue;
    }
    if (b < min_bytes || b > max_bytes) continue; /* outside --min-bytes/--max-bytes */
    if (m->n[alg] == MAXPTS) die("too many points for ", name);
    m->bytes[alg][m->n[alg]] = b;
    m->T[alg][m->n[alg]++] = t;
  }
  fclose(f);
  return 0;
}

/* Fits every measured algorithm into mp; returns the first fitted (-1: none)
 * and sets *failed if a fit was rejected. */
static int fit_all(const fit_args *a, const measurements *m, pat_model_params *mp, int *failed) {
  int first = -1;
  *failed = 0;
  for (int alg = 0; alg < PAT_ALG_COUNT; alg++) {
    if (!m->n[alg]) continue;
    pat_fit_opts o = {a->metric, 0, 0};
    pat_fit_result fr;
    int rc = pat_fit_alg(alg, a->P, 0, m->n[alg], m->bytes[alg], m->T[alg], &o, &fr);
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

/* Fits the measured times and writes the model file; the exit status. */
static int fit_measured(const fit_args *a) {
  static measurements m;
  int rc = read_times(a->in, a->min_bytes, a->max_bytes, &m);
  if (rc) return rc;
  pat_model_params mp;
  pat_model_params_init(&mp, 0, 0);
  mp.dflt.set = 0;
  snprintf(mp.made, sizeof mp.made, "pat-fit from %s: P=%d, metric %s%s%s%s%s", a->in, a->P,
           a->metric == PAT_FIT_EBAR ? "ebar" : "runtime", a->made ? "; " : "", a->made ? a->made : "",
           m.comments[0] ? "; " : "", m.comments);
  int failed, first = fit_all(a, &m, &mp, &failed);
  if (first < 0) die("no algorithm could be fitted", NULL);
  int want = a->dflt ? pat_alg_by_name(a->dflt) : PAT_ALG_RING;
  int d = want >= 0 && mp.alg[want].set ? want : first;
  mp.dflt = mp.alg[d];
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
  if (a.synthetic) return synthetic(a.P, a.alpha, a.beta, a.noise, a.out, a.metric);
  if (!a.in || !a.out) {
    usage(stderr);
    return 2;
  }
  return fit_measured(&a);
}
