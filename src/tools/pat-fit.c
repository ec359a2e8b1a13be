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
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/fit.h"

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
          "times: seconds, or with s, ms, us, ns.\n");
}

static void die(const char *what, const char *arg) {
  fprintf(stderr, "pat-fit: %s%s\n", what, arg ? arg : "");
  exit(2);
}

static double parse_time(const char *s) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || errno || !isfinite(v) || v < 0) die("bad time: ", s);
  if (!*end || !strcmp(end, "s")) return v;
  if (!strcmp(end, "ms")) return v * 1e-3;
  if (!strcmp(end, "us")) return v * 1e-6;
  if (!strcmp(end, "ns")) return v * 1e-9;
  die("bad time unit: ", s);
  return 0;
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
  for (size_t k = 0; k < sizeof algs / sizeof *algs; k++) {
    int alg = algs[k];
    /* each algorithm its own parameters, as on a real machine */
    double a = alpha * (1 + 0.15 * k), b = beta * (1 - 0.07 * k);
    pat_build_args args = {P, PAT_ALL_RANKS, NULL, 0, 0, 0};
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
    T[(int)(k * 3 + 2) % 10] *= 2.0; /* an outlier */
    pat_sched_free(&s);
    pat_fit_opts o = {metric, 0, 0};
    pat_fit_result fr;
    int rc = pat_fit_alg(alg, P, 0, 10, m, T, &o, &fr);
    if (rc) {
      printf("%-6s fit failed: %s\n", pat_algorithms[alg].name, fr.msg);
      bad = 1;
      continue;
    }
    double ea = fabs(fr.alpha / a - 1), eb = fabs(fr.beta / b - 1);
    int ok = ea <= 0.10 && eb <= 0.05;
    bad |= !ok;
    printf("%-6s %12.4g %12.4g %12.4g %12.4g %7.2f%% %7.2f%% %s\n", pat_algorithms[alg].name, a, fr.alpha, b,
           fr.beta, 100 * ea, 100 * eb, ok ? "ok" : "OFF");
    mp.alg[alg].set = 1;
    mp.alg[alg].inter.alpha = fr.alpha;
    mp.alg[alg].inter.beta = fr.beta;
  }
  /* the negative-slope guard */
  for (int i = 0; i < 10; i++) T[i] = 1e-2 * (1 - i * 0.05);
  pat_fit_result fr;
  int rc = pat_fit_alg(PAT_ALG_RING, P, 0, 10, m, T, NULL, &fr);
  printf("falling times: %s (%s)\n", rc == PAT_EFIT ? "rejected" : "ACCEPTED", fr.msg);
  bad |= rc != PAT_EFIT;
  /* the file */
  char err[512];
  char *text = pat_model_format(&mp);
  pat_model_params back;
  if (!text || pat_model_parse(text, "synthetic", &back, err, sizeof err) ||
      memcmp(back.alg, mp.alg, sizeof mp.alg) != 0) {
    printf("model file round trip FAILED %s\n", err);
    bad = 1;
  } else {
    printf("model file round trip: ok\n");
  }
  if (out) {
    if (pat_model_write(out, &mp, err, sizeof err)) die(err, NULL);
    printf("wrote %s\n", out);
  } else {
    printf("\n%s", text ? text : "");
  }
  free(text);
  printf("%s\n", bad ? "SELF-CHECK FAILED" : "self-check passed");
  return bad;
}

int main(int argc, char **argv) {
  const char *in = NULL, *out = NULL, *made = NULL, *dflt = NULL;
  int P = 8, syn = 0, metric = PAT_FIT_EBAR;
  double alpha = 50e-6, beta = 8e-9, noise = 0.02, min_bytes = 0, max_bytes = 1e300;
  for (int i = 1; i < argc; i++) {
    const char *k = argv[i];
    if (!strcmp(k, "--help") || !strcmp(k, "-h")) {
      usage(stdout);
      return 0;
    }
    if (!strcmp(k, "--synthetic")) {
      syn = 1;
      continue;
    }
    if (i + 1 >= argc) die("missing value after ", k);
    const char *v = argv[++i];
    if (!strcmp(k, "--in")) in = v;
    else if (!strcmp(k, "--out")) out = v;
    else if (!strcmp(k, "--made")) made = v;
    else if (!strcmp(k, "--default")) dflt = v;
    else if (!strcmp(k, "--P")) P = atoi(v);
    else if (!strcmp(k, "--min-bytes")) min_bytes = atof(v);
    else if (!strcmp(k, "--max-bytes")) max_bytes = atof(v);
    else if (!strcmp(k, "--alpha")) alpha = parse_time(v);
    else if (!strcmp(k, "--beta")) beta = parse_time(v);
    else if (!strcmp(k, "--noise")) noise = atof(v);
    else if (!strcmp(k, "--metric")) {
      if (!strcmp(v, "ebar")) metric = PAT_FIT_EBAR;
      else if (!strcmp(v, "runtime")) metric = PAT_FIT_RUNTIME;
      else die("--metric: ebar or runtime, not ", v);
    } else die("unknown option ", k);
  }
  if (P < 2 || P > 4096) die("P must be 2..4096", NULL);
  printf("#");
  for (int i = 0; i < argc; i++) printf(" %s", argv[i]);
  printf("\n");
  if (syn) return synthetic(P, alpha, beta, noise, out, metric);
  if (!in || !out) {
    usage(stderr);
    return 2;
  }
  /* read the measurements */
  FILE *f = fopen(in, "r");
  if (!f) die("cannot open ", in);
  static double bytes[PAT_ALG_COUNT][MAXPTS], T[PAT_ALG_COUNT][MAXPTS];
  int n[PAT_ALG_COUNT] = {0}, lineno = 0, ndata = 0, skipped_native = 0;
  char line[512], comments[200] = "";
  while (fgets(line, sizeof line, f)) {
    lineno++;
    char *p = line;
    while (isspace((unsigned char)*p)) p++;
    if (*p == '#') { /* how the times were made: carried into the model's "made" line */
      p++;
      while (isspace((unsigned char)*p)) p++;
      p[strcspn(p, "\r\n")] = '\0';
      size_t used = strlen(comments);
      if (*p && used + strlen(p) + 3 < sizeof comments)
        snprintf(comments + used, sizeof comments - used, "%s%s", used ? "; " : "", p);
      continue;
    }
    if (!*p) continue;
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
    if (n[alg] == MAXPTS) die("too many points for ", name);
    bytes[alg][n[alg]] = b;
    T[alg][n[alg]++] = t;
  }
  fclose(f);
  pat_model_params mp;
  pat_model_params_init(&mp, 0, 0);
  mp.dflt.set = 0;
  snprintf(mp.made, sizeof mp.made, "pat-fit from %s: P=%d, metric %s%s%s%s%s", in, P,
           metric == PAT_FIT_EBAR ? "ebar" : "runtime", made ? "; " : "", made ? made : "", comments[0] ? "; " : "",
           comments);
  int want = dflt ? pat_alg_by_name(dflt) : PAT_ALG_RING, first = -1, failed = 0;
  for (int alg = 0; alg < PAT_ALG_COUNT; alg++) {
    if (!n[alg]) continue;
    pat_fit_opts o = {metric, 0, 0};
    pat_fit_result fr;
    int rc = pat_fit_alg(alg, P, 0, n[alg], bytes[alg], T[alg], &o, &fr);
    report(alg, &fr, rc);
    if (rc) {
      failed = 1;
      continue;
    }
    mp.alg[alg].set = 1;
    mp.alg[alg].inter.alpha = fr.alpha;
    mp.alg[alg].inter.beta = fr.beta;
    if (first < 0) first = alg;
  }
  if (first < 0) die("no algorithm could be fitted", NULL);
  int d = want >= 0 && mp.alg[want].set ? want : first;
  mp.dflt = mp.alg[d];
  char err[512];
  if (pat_model_write(out, &mp, err, sizeof err)) die(err, NULL);
  printf("wrote %s (default = %s)%s\n", out, pat_algorithms[d].name, failed ? "; some fits were rejected" : "");
  return failed;
}
