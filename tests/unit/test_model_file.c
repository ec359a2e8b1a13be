/* The model file v2 (P and the measured times) and the measured-time API:
 * exact round trip, version 1 still loads, a newer version and bad lines are
 * refused with file:line messages; interpolation exact at the measured
 * sizes, monotone and within the two points between them, the rules below
 * and above the table; the best measured algorithm, ties to the lower id;
 * the back-to-back table ("b2b" lines): round trip, its rules, and no
 * answer above its largest size; the pair alone on the network ("link"):
 * written right after the fitted lines, bit-identical round trip, absent
 * unless set, bad lines refused with file:line messages. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/measured.h"
#include "model/model_file.h"
#include "model/placement.h"
#include "testutil.h"

#define V2 "# libpat model v2\ndefault 1e-5 1e-9\n"

static int parse_fails(const char *text, const char *expect) {
  pat_model_params mp;
  char err[512] = "";
  int rc = pat_model_parse(text, "t.model", &mp, err, sizeof err);
  int ok = rc == PAT_EINVAL && strstr(err, expect) != NULL;
  if (!ok) fprintf(stderr, "  expected an error with \"%s\", got rc=%d \"%s\"\n", expect, rc, err);
  return ok;
}

/* A table for P = 4: every algorithm but bruck, native included, at sizes
 * 1, 4, ..., 4^10 with times that are not short decimals. */
static void sample_model(pat_model_params *mp) {
  pat_model_params_init(mp, 5e-5, 8e-9);
  mp->alg[PAT_ALG_RING].set = 1;
  mp->alg[PAT_ALG_RING].inter = (pat_hockney){4.1e-05, 7.9e-09};
  snprintf(mp->made, sizeof mp->made, "test: P=4; calibration.csv");
  mp->measured.P = 4;
  for (int a = 0; a < PAT_ALG_COUNT; a++) {
    if (a == PAT_ALG_BRUCK) continue;
    for (int k = 10; k >= 0; k--) { /* added largest first: the table sorts */
      double m = pow(4.0, k);
      pat_measured_add(&mp->measured, a, m, (3e-6 + a * 1e-7) / 3.0 + m * (1.0 + a) / 7e8);
    }
  }
}

static int round_trip(void) {
  pat_model_params mp, back;
  sample_model(&mp);
  char *text = pat_model_format(&mp), err[512] = "";
  CHECK(text && strncmp(text, "# libpat model v2\n", 18) == 0, "header: %.40s", text ? text : "(null)");
  CHECK(text && strstr(text, "\nP 4\n") && strstr(text, "\ntime native   1 ") && !strstr(text, "time bruck"),
        "P and time lines in:\n%s", text ? text : "");
  CHECK(pat_model_parse(text, "rt", &back, err, sizeof err) == PAT_OK, "parse own output: %s", err);
  CHECK(memcmp(&back.measured, &mp.measured, sizeof mp.measured) == 0, "measured table differs after the round trip");
  CHECK(memcmp(back.alg, mp.alg, sizeof mp.alg) == 0 && memcmp(&back.dflt, &mp.dflt, sizeof mp.dflt) == 0 &&
            strcmp(back.made, mp.made) == 0,
        "fitted lines or made differ");
  CHECK(pat_model_measured_note(&back) == NULL, "a table has no note");
  char *again = pat_model_format(&back);
  CHECK(again && text && strcmp(again, text) == 0, "format(parse(format)) differs");
  /* what every rank computes from the broadcast text is what rank 0 computes */
  for (double m = 0.5; m < 4e6; m *= 1.37) {
    double t0 = -1, t1 = -2;
    pat_model_measured_time(&mp, PAT_ALG_ARD, 4, m, &t0);
    pat_model_measured_time(&back, PAT_ALG_ARD, 4, m, &t1);
    CHECK(memcmp(&t0, &t1, sizeof t0) == 0, "bit-identical after the round trip at %g B", m);
  }
  free(again);
  free(text);
  return 0;
}

static int versions(void) {
  pat_model_params mp;
  char err[512] = "";
  /* version 1: fitted lines only, with a note saying what to do */
  CHECK(pat_model_parse("# libpat model v1\ndefault 1e-5 1e-9\nring 2e-5 2e-9\n", "old.model", &mp, err,
                        sizeof err) == PAT_OK,
        "v1 loads: %s", err);
  CHECK(mp.alg[PAT_ALG_RING].set && mp.measured.P == 0, "v1 values");
  const char *note = pat_model_measured_note(&mp);
  CHECK(note && strstr(note, "fitted lines only") && strstr(note, "recalibrate"), "note: %s", note ? note : "(null)");
  double t = 42;
  CHECK(!pat_model_measured_time(&mp, PAT_ALG_RING, 4, 1024, &t) && t == 42, "v1 has no measured times");
  /* a v1 file written again is a v2 file without time lines, and loads */
  char *text = pat_model_format(&mp);
  CHECK(text && strncmp(text, "# libpat model v2\n", 18) == 0 && !strstr(text, "\nP "), "v1 rewritten");
  CHECK(text && pat_model_parse(text, "w", &mp, err, sizeof err) == PAT_OK && mp.measured.P == 0, "%s", err);
  free(text);
  CHECK(parse_fails("# libpat model v3\ndefault 1e-5 1e-9\n", "t.model:1: model file version 3 is newer"), "v3");
  CHECK(parse_fails("# libpat model v3\n", "recalibrate"), "v3 says what to do");
  CHECK(parse_fails("# libpat model v0\n", "unsupported model file version 0"), "v0");
  CHECK(parse_fails("# libpat model v1\ndefault 1e-5 1e-9\nP 4\n", "t.model:3: \"P\" lines need model file version 2"),
        "P in v1");
  CHECK(parse_fails("# libpat model v1\ndefault 1e-5 1e-9\ntime ring 1 1e-5\n", "t.model:3: \"time\" lines need"),
        "time in v1");
  return 0;
}

static int bad_lines(void) {
  CHECK(parse_fails(V2 "P 4\ntime ring 0 1e-5\ntime ring 4 1e-5\n", "t.model:4: block bytes \"0\""), "0 bytes");
  CHECK(parse_fails(V2 "P 4\ntime ring 64 -1e-5\n", "t.model:4: seconds \"-1e-5\""), "negative time");
  CHECK(parse_fails(V2 "P 4\ntime ring 64 0\n", "seconds \"0\""), "zero time");
  CHECK(parse_fails(V2 "P 4\ntime ring 64 nan\n", "seconds \"nan\""), "nan");
  CHECK(parse_fails(V2 "P 4\ntime ring 1e999 1\n", "block bytes"), "infinite size");
  CHECK(parse_fails(V2 "P 4\ntime default 64 1e-5\n", "t.model:4: unknown algorithm \"default\" (one of: native, ring"),
        "default has no times");
  CHECK(parse_fails(V2 "P 4\ntime rign 64 1e-5\n", "unknown algorithm \"rign\""), "unknown algorithm");
  CHECK(parse_fails(V2 "P 4\ntime ring 64\n", "t.model:4: expected \"time <algorithm> <block bytes> <seconds>\""),
        "missing field");
  CHECK(parse_fails(V2 "P 4\ntime ring 64 1e-5 3\n", "expected \"time"), "extra field");
  CHECK(parse_fails(V2 "P 4\ntime ring 64 1e-5\ntime ring 16 1e-5\ntime ring 64.0 2e-5\n",
                    "t.model:6: time ring 64.0 given twice"),
        "duplicate size");
  CHECK(parse_fails(V2 "P 4\nP 4\n", "t.model:4: P given twice (first on line 3)"), "P twice");
  CHECK(parse_fails(V2 "P 0\n", "t.model:3: expected \"P <processes>\""), "P 0");
  CHECK(parse_fails(V2 "P 4.5\n", "expected \"P <processes>\""), "P 4.5");
  CHECK(parse_fails(V2 "P\n", "expected \"P <processes>\""), "P alone");
  CHECK(parse_fails(V2 "time ring 1 1e-5\ntime ring 4 1e-5\n", "t.model:4: time lines need a \"P <processes>\" line"),
        "times without P");
  CHECK(parse_fails(V2 "P 4\n", "t.model:3: P given but no time lines"), "P without times");
  CHECK(parse_fails(V2 "P 4\ntime ring 1 1e-5\ntime ring 4 1e-5\ntime nex 1 1e-5\n",
                    "t.model:6: time nex: one measured size; at least 2"),
        "one size");
  char text[8192];
  int len = snprintf(text, sizeof text, V2 "P 2\n");
  for (int k = 0; k <= PAT_MEASURED_MAX; k++)
    len += snprintf(text + len, sizeof text - (size_t)len, "time ard %.0f 1e-5\n", ldexp(1, k));
  CHECK(parse_fails(text, "more than 32 measured sizes for ard"), "full");
  /* any order, comments and the native algorithm are fine */
  pat_model_params mp;
  char err[512] = "";
  CHECK(pat_model_parse(V2 "time native 4096 3e-5 # big\nP 2\ntime native 1 1e-5\ntime NATIVE 64 2e-5\n", "ok", &mp,
                        err, sizeof err) == PAT_OK,
        "unordered: %s", err);
  const pat_measured_alg *n = &mp.measured.alg[PAT_ALG_NATIVE];
  CHECK(mp.measured.P == 2 && n->n == 3 && n->bytes[0] == 1 && n->bytes[1] == 64 && n->bytes[2] == 4096 &&
            n->seconds[2] == 3e-5,
        "sorted by size");
  return 0;
}

static int table_add(void) {
  pat_measured t;
  memset(&t, 0, sizeof t);
  CHECK(pat_measured_add(&t, PAT_ALG_RING, 64, 1e-5) == PAT_MEASURED_ADDED, "add");
  CHECK(pat_measured_add(&t, PAT_ALG_RING, 64, 2e-5) == PAT_MEASURED_DUPLICATE, "duplicate");
  CHECK(pat_measured_add(&t, PAT_ALG_RING, 8, 1e-6) == PAT_MEASURED_ADDED, "add below");
  CHECK(t.alg[PAT_ALG_RING].bytes[0] == 8 && t.alg[PAT_ALG_RING].seconds[1] == 1e-5, "inserted in order");
  CHECK(pat_measured_add(&t, PAT_ALG_COUNT, 64, 1e-5) == PAT_MEASURED_BAD, "bad algorithm");
  CHECK(pat_measured_add(&t, PAT_ALG_RING, -1, 1e-5) == PAT_MEASURED_BAD, "bad size");
  CHECK(pat_measured_add(&t, PAT_ALG_RING, 1, INFINITY) == PAT_MEASURED_BAD, "bad time");
  for (int k = 0; k < 40; k++) pat_measured_add(&t, PAT_ALG_NEX, 1 + k, 1e-5);
  CHECK(t.alg[PAT_ALG_NEX].n == PAT_MEASURED_MAX && pat_measured_add(&t, PAT_ALG_NEX, 100, 1) == PAT_MEASURED_FULL,
        "full at %d", PAT_MEASURED_MAX);
  return 0;
}

/* A two-algorithm table for P = 8: ring (1 KiB: 10 us, 4 KiB: 20 us,
 * 16 KiB: 90 us) and nex falling at the end (1 KiB: 30 us, 4 KiB: 25 us). */
static void two_algs(pat_model_params *mp) {
  pat_model_params_init(mp, 1e-6, 1e-9);
  mp->measured.P = 8;
  pat_measured_add(&mp->measured, PAT_ALG_RING, 1024, 10e-6);
  pat_measured_add(&mp->measured, PAT_ALG_RING, 4096, 20e-6);
  pat_measured_add(&mp->measured, PAT_ALG_RING, 16384, 90e-6);
  pat_measured_add(&mp->measured, PAT_ALG_NEX, 1024, 30e-6);
  pat_measured_add(&mp->measured, PAT_ALG_NEX, 4096, 25e-6);
}

static int interpolation(void) {
  pat_model_params mp;
  two_algs(&mp);
  double t;
  /* exact at every measured size */
  const pat_measured_alg *r = &mp.measured.alg[PAT_ALG_RING];
  for (int i = 0; i < r->n; i++)
    CHECK(pat_model_measured_time(&mp, PAT_ALG_RING, 8, r->bytes[i], &t) && t == r->seconds[i], "at %g: %g",
          r->bytes[i], t);
  /* between two points: a power law, monotone and within the two */
  double prev = 0, prev_nex = INFINITY;
  for (int k = 0; k <= 1000; k++) {
    double m = 1024 + 3072.0 * k / 1000, tn;
    CHECK(pat_model_measured_time(&mp, PAT_ALG_RING, 8, m, &t), "answers at %g", m);
    CHECK(t >= prev && t >= 10e-6 && t <= 20e-6, "ring at %g: %.17g after %.17g", m, t, prev);
    CHECK(pat_model_measured_time(&mp, PAT_ALG_NEX, 8, m, &tn) && tn <= prev_nex && tn >= 25e-6 && tn <= 30e-6,
          "nex at %g: %.17g after %.17g", m, tn, prev_nex);
    double want = 10e-6 * pow(2.0, log(m / 1024) / log(4.0)); /* t doubles per factor 4 */
    CHECK(fabs(t / want - 1) < 1e-14, "power law at %g: %.17g, libm says %.17g", m, t, want);
    prev = t;
    prev_nex = tn;
  }
  CHECK(pat_model_measured_time(&mp, PAT_ALG_RING, 8, 2048, &t) && fabs(t / (10e-6 * sqrt(2)) - 1) < 1e-15,
        "geometric middle: %.17g", t);
  /* below the smallest size: its time (latency-bound), 0 bytes included */
  CHECK(pat_model_measured_time(&mp, PAT_ALG_RING, 8, 1, &t) && t == 10e-6, "below: %g", t);
  CHECK(pat_model_measured_time(&mp, PAT_ALG_RING, 8, 0, &t) && t == 10e-6, "0 bytes: %g", t);
  /* above the largest: the last two points' line (70 us per 12 KiB) */
  CHECK(pat_model_measured_time(&mp, PAT_ALG_RING, 8, 16384 + 12288, &t) && fabs(t / 160e-6 - 1) < 1e-15,
        "above: %.17g (want 160 us)", t);
  CHECK(pat_model_measured_time(&mp, PAT_ALG_RING, 8, 1 << 20, &t) &&
            fabs(t / (90e-6 + 70e-6 / 12288 * ((1 << 20) - 16384)) - 1) < 1e-15,
        "far above: %g", t);
  /* a falling last pair extends flat */
  CHECK(pat_model_measured_time(&mp, PAT_ALG_NEX, 8, 1 << 20, &t) && t == 25e-6, "falling pair: %g", t);
  /* who cannot answer says so and leaves *seconds alone */
  t = -1;
  CHECK(!pat_model_measured_time(&mp, PAT_ALG_RING, 4, 1024, &t) && t == -1, "another P");
  CHECK(!pat_model_measured_time(&mp, PAT_ALG_BRUCK, 8, 1024, &t) && t == -1, "not measured");
  CHECK(!pat_model_measured_time(&mp, PAT_ALG_RING, 8, -1, &t) &&
            !pat_model_measured_time(&mp, PAT_ALG_RING, 8, NAN, &t) &&
            !pat_model_measured_time(&mp, PAT_ALG_RING, 8, INFINITY, &t) && t == -1,
        "bad size");
  CHECK(!pat_model_measured_time(&mp, -1, 8, 1024, &t) && !pat_model_measured_time(&mp, PAT_ALG_COUNT, 8, 1024, &t) &&
            !pat_model_measured_time(NULL, PAT_ALG_RING, 8, 1024, &t),
        "bad algorithm or model");
  /* many random segments: the power law through both points, as libm computes it */
  unsigned long long x = 88172645463325252ull;
  for (int k = 0; k < 2000; k++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    double m0 = 1 + (double)(x % 1000000), f = 1.01 + (double)(x >> 40) / (1 << 20), t0 = 1e-6 * (1 + (x % 977));
    double t1 = t0 * (0.5 + (double)((x >> 20) % 4000) / 1000), m = m0 * pow(f, 0.37);
    pat_model_params one;
    pat_model_params_init(&one, 1e-6, 1e-9);
    one.measured.P = 3;
    pat_measured_add(&one.measured, PAT_ALG_RDB, m0, t0);
    pat_measured_add(&one.measured, PAT_ALG_RDB, m0 * f, t1);
    double want = t0 * pow(t1 / t0, log(m / m0) / log(f));
    CHECK(pat_model_measured_time(&one, PAT_ALG_RDB, 3, m, &t) && fabs(t / want - 1) < 1e-13,
          "segment %g..%g at %g: %.17g, libm %.17g", m0, m0 * f, m, t, want);
  }
  return 0;
}

static int best(void) {
  pat_model_params mp;
  two_algs(&mp);
  double t = 0;
  CHECK(pat_model_measured_best(&mp, 0, 8, 1024, &t) == PAT_ALG_RING && t == 10e-6, "small: ring");
  CHECK(pat_model_measured_best(&mp, 0, 8, 16384, &t) == PAT_ALG_NEX && t == 25e-6, "large: nex (flat)");
  CHECK(pat_model_measured_best(&mp, 1u << PAT_ALG_NEX, 8, 1024, &t) == PAT_ALG_NEX && t == 30e-6, "allowed set");
  CHECK(pat_model_measured_best(&mp, 1u << PAT_ALG_BRUCK, 8, 1024, &t) == PAT_ALG_UNKNOWN, "nothing measured allowed");
  CHECK(pat_model_measured_best(&mp, 0, 5, 1024, NULL) == PAT_ALG_UNKNOWN, "another P");
  /* ties: the lower id, whatever the order of the bits */
  pat_measured_add(&mp.measured, PAT_ALG_NATIVE, 1024, 10e-6);
  pat_measured_add(&mp.measured, PAT_ALG_NATIVE, 4096, 20e-6);
  pat_measured_add(&mp.measured, PAT_ALG_NATIVE, 16384, 90e-6);
  for (double m = 100; m < 1e6; m *= 1.9)
    CHECK(pat_model_measured_best(&mp, (1u << PAT_ALG_RING) | (1u << PAT_ALG_NATIVE), 8, m, NULL) == PAT_ALG_NATIVE,
          "tie at %g: lower id", m);
  return 0;
}

static int back_to_back(void) {
  pat_model_params mp, back;
  sample_model(&mp);
  mp.b2b.P = 4;
  pat_measured_add(&mp.b2b, PAT_ALG_NATIVE, 1, 1.5e-6);
  pat_measured_add(&mp.b2b, PAT_ALG_NATIVE, 16384, 3.25e-5);
  pat_measured_add(&mp.b2b, PAT_ALG_DIRECT, 1, 3e-6);
  pat_measured_add(&mp.b2b, PAT_ALG_DIRECT, 16384, 5e-5);
  char *text = pat_model_format(&mp), err[512] = "";
  CHECK(text && strstr(text, "\nb2b native   1 1.5e-06\n") && strstr(text, "\nb2b direct   16384 5.0000000000000002e-05\n"),
        "b2b lines in:\n%s", text ? text : "");
  CHECK(pat_model_parse(text, "rt", &back, err, sizeof err) == PAT_OK, "parse own output: %s", err);
  CHECK(memcmp(&back.b2b, &mp.b2b, sizeof mp.b2b) == 0, "b2b table differs after the round trip");
  char *again = pat_model_format(&back);
  CHECK(again && text && strcmp(again, text) == 0, "format(parse(format)) differs");
  free(text);
  free(again);
  double t = -1;
  CHECK(pat_model_measured_b2b_time(&back, PAT_ALG_DIRECT, 4, 0, &t) && t == 3e-6, "below: %g", t);
  CHECK(pat_model_measured_b2b_time(&back, PAT_ALG_DIRECT, 4, 16384, &t) && t == 5e-5, "at the largest: %g", t);
  t = -1;
  CHECK(!pat_model_measured_b2b_time(&back, PAT_ALG_DIRECT, 4, 16385, &t) && t == -1, "no answer above the largest");
  CHECK(!pat_model_measured_b2b_time(&back, PAT_ALG_RING, 4, 64, &t) && t == -1, "not measured back to back");
  CHECK(!pat_model_measured_b2b_time(&back, PAT_ALG_DIRECT, 8, 64, &t) && t == -1, "another P");
  /* a file without b2b lines has no table; the lines need time lines and 2 sizes */
  CHECK(pat_model_parse(V2 "P 2\ntime native 1 1e-5\ntime native 64 2e-5\n", "ok", &back, err, sizeof err) == PAT_OK &&
            back.b2b.P == 0 && !pat_model_measured_b2b_time(&back, PAT_ALG_NATIVE, 2, 1, &t),
        "no b2b lines: %s", err);
  CHECK(parse_fails(V2 "P 2\nb2b native 1 1e-5\nb2b native 64 2e-5\n", "b2b lines need the time lines"), "alone");
  CHECK(parse_fails(V2 "P 2\ntime native 1 1e-5\ntime native 64 2e-5\nb2b ring 1 1e-5\n",
                    "b2b ring: one measured size"),
        "one size");
  CHECK(parse_fails(V2 "P 2\ntime native 1 1e-5\ntime native 64 2e-5\nb2b ring 1 1e-5\nb2b ring 1 2e-5\n",
                    "b2b ring 1 given twice"),
        "twice");
  CHECK(parse_fails("# libpat model v1\ndefault 1e-5 1e-9\nb2b ring 1 1e-5\n", "need model file version 2"),
        "version 1");
  return 0;
}

static int pair_link(void) {
  pat_model_params mp, back;
  sample_model(&mp);
  mp.link_set = 1;
  mp.link = (pat_hockney){1.0e-5 / 3.0, 1.0 / 1.1e9}; /* not short decimals */
  char *text = pat_model_format(&mp), err[512] = "";
  const char *ring = text ? strstr(text, "\nring ") : NULL, *line = text ? strstr(text, "\nlink ") : NULL;
  /* right after the fitted lines: ring is the last one of sample_model */
  CHECK(ring && line && line == strchr(ring + 1, '\n'), "link line right after the fitted lines in:\n%s",
        text ? text : "");
  CHECK(pat_model_parse(text, "rt", &back, err, sizeof err) == PAT_OK, "parse own output: %s", err);
  CHECK(back.link_set && memcmp(&back.link, &mp.link, sizeof mp.link) == 0, "link differs after the round trip");
  CHECK(memcmp(back.alg, mp.alg, sizeof mp.alg) == 0 && memcmp(&back.dflt, &mp.dflt, sizeof mp.dflt) == 0 &&
            memcmp(&back.measured, &mp.measured, sizeof mp.measured) == 0,
        "the other lines differ after the round trip");
  char *again = pat_model_format(&back);
  CHECK(again && text && strcmp(again, text) == 0, "format(parse(format)) differs");
  free(again);
  free(text);
  /* not set: no line, and a file without one leaves link_set 0 */
  mp.link_set = 0;
  text = pat_model_format(&mp);
  CHECK(text && !strstr(text, "link"), "no link line unless set:\n%s", text ? text : "");
  CHECK(text && pat_model_parse(text, "rt", &back, err, sizeof err) == PAT_OK && !back.link_set, "no link: %s", err);
  free(text);
  /* by hand: any place after the header, any version, a comment after it */
  CHECK(pat_model_parse("# libpat model v1\nlink 2e-6 1e-9 # ping-pong\ndefault 1e-5 1e-9\n", "ok", &back, err,
                        sizeof err) == PAT_OK &&
            back.link_set && back.link.alpha == 2e-6 && back.link.beta == 1e-9,
        "link in v1: %s", err);
  CHECK(pat_model_parse(V2 "link 0 1e-9\n", "ok", &back, err, sizeof err) == PAT_OK && back.link.alpha == 0,
        "alpha 0: %s", err);
  /* bad lines name the file and the line */
  CHECK(parse_fails(V2 "link 1e-5\n", "t.model:3: expected \"link <alpha> <beta>\""), "one number");
  CHECK(parse_fails(V2 "link 1e-5 1e-9 3\n", "t.model:3: expected \"link <alpha> <beta>\""), "three numbers");
  CHECK(parse_fails(V2 "link\n", "t.model:3: expected \"link"), "no numbers");
  CHECK(parse_fails(V2 "link -1e-5 1e-9\n", "t.model:3: link alpha \"-1e-5\" is not a finite number >= 0"),
        "negative alpha");
  CHECK(parse_fails(V2 "link 1e-5 -1e-9\n", "t.model:3: link beta \"-1e-9\""), "negative beta");
  CHECK(parse_fails(V2 "link 1e-5 inf\n", "t.model:3: link beta \"inf\""), "infinite beta");
  CHECK(parse_fails(V2 "link 0 0\n", "t.model:3: link alpha and beta are both 0"), "both 0");
  CHECK(parse_fails(V2 "link 1e-5 1e-9\n# again\nlink 1e-5 1e-9\n", "t.model:5: link given twice (first on line 3)"),
        "twice");
  CHECK(parse_fails(V2 "lnk 1e-5 1e-9\n", "t.model:3: unknown keyword \"lnk\" (expected made, eager, link,"),
        "the keywords list link");
  return 0;
}

/* Where a model file comes from: the libpat version and platform lines round-trip, a file without
 * them loads with both unknown (and pat_model_origin_note says "unknown version"), one with them
 * stays readable as comments, and the note names what differs. */
static int origin(void) {
  pat_model_params mp, back;
  char err[512] = "", note[512];
  pat_model_params_init(&mp, 1e-5, 1e-9);
  snprintf(mp.libpat_version, sizeof mp.libpat_version, "0.1.0");
  snprintf(mp.platform, sizeof mp.platform, "Open MPI v4.1.4; Linux x86_64");
  char *text = pat_model_format(&mp);
  CHECK(text && strstr(text, "# libpat-version 0.1.0\n") && strstr(text, "# platform Open MPI v4.1.4; Linux x86_64\n"),
        "the origin lines written: %s", text ? text : "(none)");
  CHECK(pat_model_parse(text, "o.model", &back, err, sizeof err) == PAT_OK, "parse: %s", err);
  CHECK(strcmp(back.libpat_version, "0.1.0") == 0 && strcmp(back.platform, mp.platform) == 0,
        "read back: \"%s\", \"%s\"", back.libpat_version, back.platform);
  free(text);
  CHECK(!pat_model_origin_note(&back, "0.1.0", "Open MPI v4.1.4; Linux x86_64", note, sizeof note),
        "the same libpat and platform: a note \"%s\"", note);
  CHECK(pat_model_origin_note(&back, "0.2.0", "Open MPI v4.1.4; Linux x86_64", note, sizeof note) &&
            strstr(note, "libpat 0.1.0, this is 0.2.0"), "another version: \"%s\"", note);
  CHECK(pat_model_origin_note(&back, "0.1.0", "MPICH 4.0; Linux x86_64", note, sizeof note) && strstr(note, "MPICH"),
        "another platform: \"%s\"", note);
  CHECK(pat_model_parse("# libpat model v2\ndefault 1e-5 1e-9\n", "old.model", &back, err, sizeof err) == PAT_OK,
        "an old file: %s", err);
  CHECK(back.libpat_version[0] == 0 && back.platform[0] == 0, "an old file: \"%s\", \"%s\"", back.libpat_version,
        back.platform);
  CHECK(pat_model_origin_note(&back, "0.1.0", "x", note, sizeof note) && strstr(note, "unknown version"),
        "an old file: \"%s\"", note);
  return 0;
}

/* The calibration's nodes: a "nodes" line round-trips, a file without one reads 0 (not recorded),
 * and a count under 1 or a second line is an error. */
static int nodes_line(void) {
  pat_model_params mp, back;
  char err[512] = "";
  pat_model_params_init(&mp, 1e-5, 1e-9);
  mp.calib_nodes = 8;
  char *text = pat_model_format(&mp);
  CHECK(text && strstr(text, "\nnodes 8 "), "the nodes line written: %s", text ? text : "(none)");
  CHECK(pat_model_parse(text, "n.model", &back, err, sizeof err) == PAT_OK && back.calib_nodes == 8,
        "read back: %d (%s)", back.calib_nodes, err);
  free(text);
  CHECK(pat_model_parse("# libpat model v2\ndefault 1e-5 1e-9\n", "old.model", &back, err, sizeof err) == PAT_OK &&
            back.calib_nodes == 0, "a file without it: %d", back.calib_nodes);
  CHECK(pat_model_parse("# libpat model v2\ndefault 1e-5 1e-9\nnodes 0\n", "z.model", &back, err, sizeof err) != PAT_OK,
        "nodes 0 is refused");
  CHECK(pat_model_parse("# libpat model v2\ndefault 1e-5 1e-9\nnodes 2\nnodes 2\n", "t.model", &back, err,
                        sizeof err) != PAT_OK && strstr(err, "twice"), "nodes twice is refused: %s", err);
  return 0;
}

/* The "placement" line: written, read back, absent, 0 and twice refused; and the hash tells placements apart. */
static int placement_line(void) {
  pat_model_params mp, back;
  char err[512] = "";
  pat_model_params_init(&mp, 1e-5, 1e-9);
  const int slot[8] = {0, 0, 2, 2, 4, 4, 6, 6}, robin[8] = {0, 1, 2, 3, 0, 1, 2, 3};
  mp.calib_placement = pat_placement_hash(8, slot);
  CHECK(mp.calib_placement != pat_placement_hash(8, robin), "by slot and round robin hash alike");
  char *text = pat_model_format(&mp);
  CHECK(text && strstr(text, "\nplacement "), "the placement line written: %s", text ? text : "(none)");
  CHECK(pat_model_parse(text, "p.model", &back, err, sizeof err) == PAT_OK &&
            back.calib_placement == mp.calib_placement, "read back: %llx (%s)",
        (unsigned long long)back.calib_placement, err);
  free(text);
  CHECK(pat_model_parse("# libpat model v2\ndefault 1e-5 1e-9\n", "old.model", &back, err, sizeof err) == PAT_OK &&
            back.calib_placement == 0, "a file without it: %llx", (unsigned long long)back.calib_placement);
  CHECK(pat_model_parse("# libpat model v2\ndefault 1e-5 1e-9\nplacement 0\n", "z.model", &back, err, sizeof err) !=
            PAT_OK, "placement 0 is refused");
  CHECK(pat_model_parse("# libpat model v2\ndefault 1e-5 1e-9\nplacement a1\nplacement a1\n", "t.model", &back, err,
                        sizeof err) != PAT_OK && strstr(err, "twice"), "placement twice is refused: %s", err);
  return 0;
}

int main(void) {
  if (round_trip() || versions() || bad_lines() || table_add() || interpolation() || best() || back_to_back() ||
      pair_link() || origin() || nodes_line() || placement_line())
    return 1;
  return TEST_RESULT();
}
