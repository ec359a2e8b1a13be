/* The tools' command-line parser (src/tools/cli.c): the forms it accepts,
 * the ones it refuses, and what it says when it refuses. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "testutil.h"
#include "tools/cli.h"

static cli_error err;

#define HAS(part) (strstr(err.text, (part)) != NULL)

static int counts(void) {
  static const struct { const char *text; uint64_t value; } ok[] = {
      {"0", 0},           {"64", 64},          {"512k", 524288},    {"512K", 524288}, {"1M", 1048576},
      {"1m", 1048576},    {"2g", 2147483648u}, {"2G", 2147483648u}, {"1.5k", 1536},   {"1e6", 1000000},
      {".5k", 512},       {"16777216g", 18014398509481984u},       {"18446744073709551615", UINT64_MAX}};
  for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
    uint64_t v = 7;
    CHECK(cli_count("-N", ok[i].text, 0, UINT64_MAX, &v, &err) == 0 && v == ok[i].value, "count \"%s\": %llu (%s)",
          ok[i].text, (unsigned long long)v, err.text);
  }
  static const char *bad[] = {"12x", "1.5", "0.3k", "5 ", " 5", "0x10", "inf", "nan", "1kk", "k", "1e", "+5", "1,2"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    uint64_t v = 7;
    CHECK(cli_count("-N", bad[i], 0, UINT64_MAX, &v, &err) == -1 && v == 7, "count \"%s\" accepted", bad[i]);
    CHECK(HAS("is not a count") && HAS("k, m or g"), "count \"%s\": %s", bad[i], err.text);
  }
  uint64_t v = 7;
  CHECK(cli_count("--P", "12x", 1, 4096, &v, &err) == -1, "trailing junk");
  CHECK(!strcmp(err.text, "--P: \"12x\" is not a count (a whole number, optionally with k, m or g = 2^10, 2^20, "
                          "2^30: 64, 512k, 1M)"),
        "message: %s", err.text);
  CHECK(cli_count("--P", "5000", 1, 4096, &v, &err) == -1 &&
            !strcmp(err.text, "--P: \"5000\" is out of range (1..4096)"),
        "range: %s", err.text);
  CHECK(cli_count("--P", "0", 1, 4096, &v, &err) == -1 && HAS("out of range"), "below range: %s", err.text);
  CHECK(cli_count("--P", "-3", 0, 10, &v, &err) == -1 && HAS("\"-3\" is negative"), "negative: %s", err.text);
  CHECK(cli_count("--P", "", 0, 10, &v, &err) == -1 && HAS("--P: empty value"), "empty: %s", err.text);
  CHECK(cli_count("-N", "18446744073709551616", 0, UINT64_MAX, &v, &err) == -1 && HAS("out of range"), "overflow: %s",
        err.text);
  CHECK(cli_count("-N", "17179869184g", 0, UINT64_MAX, &v, &err) == -1 && HAS("out of range"),
        "overflow by the suffix: %s", err.text);
  CHECK(cli_count("-N", "1e30", 0, UINT64_MAX, &v, &err) == -1 && HAS("out of range"), "overflow as a double: %s",
        err.text);
  CHECK(v == 7, "refusals leave the value alone");
  CHECK(cli_count("-N", "1x", 0, 9, &v, NULL) == -1, "no message wanted");

  int n = 0;
  CHECK(cli_int("--root", "3", 0, 4095, &n, &err) == 0 && n == 3, "int");
  CHECK(cli_int("--iters", "1k", 1, 1000000, &n, &err) == 0 && n == 1024, "int with suffix");
  CHECK(cli_int("--iters", "2g", 1, 2147483647, &n, &err) == -1 && HAS("out of range (1..2147483647)"),
        "int overflow: %s", err.text);
  return 0;
}

static int bytes(void) {
  static const struct { const char *text; uint64_t value; } ok[] = {
      {"4096", 4096}, {"512B", 512},       {"64k", 65536},   {"64KB", 65536},   {"64KiB", 65536},
      {"64kb", 65536}, {"1MB", 1048576},   {"1MiB", 1048576}, {"2G", 2147483648u}};
  for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
    uint64_t v = 0;
    CHECK(cli_bytes("--size", ok[i].text, 0, UINT64_MAX, &v, &err) == 0 && v == ok[i].value, "bytes \"%s\": %llu (%s)",
          ok[i].text, (unsigned long long)v, err.text);
  }
  static const char *bad[] = {"64iB", "64KiBx", "1.5", "1x", "64KBB", "B"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    uint64_t v = 0;
    CHECK(cli_bytes("--size", bad[i], 0, UINT64_MAX, &v, &err) == -1 && HAS("is not a byte size") && HAS("64KiB"),
          "bytes \"%s\": %s", bad[i], err.text);
  }
  uint64_t v = 0;
  CHECK(cli_count("-N", "64KB", 0, UINT64_MAX, &v, &err) == -1, "a count takes no B");
  CHECK(cli_bytes("--size", "0", 1, UINT64_MAX, &v, &err) == -1 && HAS("out of range"), "zero bytes");
  return 0;
}

static int times(void) {
  double t = -1;
  int tau = -1;
  /* the same products the tools computed before: 50us in seconds is 50 * 1e-6 */
  CHECK(cli_time("--alpha", "50us", CLI_S, &t, NULL, &err) == 0 && t == 50 * 1e-6, "50us: %g", t);
  CHECK(cli_time("--alpha", "50ms", CLI_S, &t, NULL, &err) == 0 && t == 50 * 1e-3, "50ms: %g", t);
  CHECK(cli_time("--alpha", "8ns", CLI_S, &t, NULL, &err) == 0 && t == 8 * 1e-9, "8ns: %g", t);
  CHECK(cli_time("--alpha", "2", CLI_S, &t, NULL, &err) == 0 && t == 2, "bare seconds");
  CHECK(cli_time("--alpha", "1.5S", CLI_S, &t, NULL, &err) == 0 && t == 1.5, "unit in any case");
  CHECK(cli_time("--alpha", "2.5e-3s", CLI_S, &t, NULL, &err) == 0 && t == 2.5e-3, "exponent");
  CHECK(cli_time("--max-delay", "5", CLI_MS, &t, NULL, &err) == 0 && t == 5, "bare ms stays as given");
  CHECK(cli_time("--max-delay", "0.5", CLI_MS, &t, NULL, &err) == 0 && t == 0.5, "fraction of a ms");
  CHECK(cli_time("--max-delay", "500us", CLI_MS, &t, NULL, &err) == 0 && t == 0.5, "500us in ms: %g", t);
  CHECK(cli_time("--max-delay", "2s", CLI_MS, &t, NULL, &err) == 0 && t == 2000, "2s in ms: %g", t);
  CHECK(cli_time("--tau-us", "1ms", CLI_US, &t, NULL, &err) == 0 && t == 1000, "1ms in us: %g", t);
  CHECK(cli_time("--max-delay", "4tau", CLI_S, &t, &tau, &err) == 0 && t == 4 && tau == 1, "4tau");
  CHECK(cli_time("--max-delay", "0.5TAU", CLI_S, &t, &tau, &err) == 0 && t == 0.5 && tau == 1, "tau in any case");
  CHECK(cli_time("--max-delay", "20ms", CLI_S, &t, &tau, &err) == 0 && t == 20 * 1e-3 && tau == 0, "tau flag cleared");

  static const char *bad[] = {"5 ms", "5m", "ms", "1xs", "5min", "inf", "5s5"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    t = -1;
    CHECK(cli_time("--alpha", bad[i], CLI_S, &t, NULL, &err) == -1 && t == -1, "time \"%s\" accepted", bad[i]);
    CHECK(HAS("is not a time (a number with s, ms, us or ns; a bare number is in seconds)"), "time \"%s\": %s", bad[i],
          err.text);
  }
  CHECK(cli_time("--alpha", "4tau", CLI_S, &t, NULL, &err) == -1 && !HAS("multiple of tau"),
        "tau only where the option takes it: %s", err.text);
  CHECK(cli_time("--late-delay", "x", CLI_S, &t, &tau, &err) == -1 && HAS("or a multiple of tau: 4tau"),
        "the message offers tau where it is accepted: %s", err.text);
  CHECK(cli_time("--base-ms", "x", CLI_MS, &t, NULL, &err) == -1 && HAS("bare number is in milliseconds"),
        "the message names the bare unit: %s", err.text);
  CHECK(cli_time("--alpha", "-1ms", CLI_S, &t, NULL, &err) == -1 && HAS("\"-1ms\" is negative"), "negative: %s",
        err.text);
  CHECK(cli_time("--alpha", "", CLI_S, &t, NULL, &err) == -1 && HAS("empty value"), "empty: %s", err.text);
  return 0;
}

static int rates(void) {
  static const struct { const char *text; double bits; } ok[] = {
      {"1gbit", 1e9},   {"1Gbit/s", 1e9}, {"10GBIT", 1e10}, {"500mbit", 500e6}, {"64kbit", 64e3},  {"1tbit", 1e12},
      {"1000bit", 1e3}, {"1e9", 1e9},     {"125MB", 1e9},   {"125MB/s", 1e9},   {"1kB", 8e3},      {"2B", 16},
      {"1GB/s", 8e9}};
  for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
    double r = 0;
    CHECK(cli_rate("--rate", ok[i].text, &r, &err) == 0 && r == ok[i].bits, "rate \"%s\": %g (%s)", ok[i].text, r,
          err.text);
  }
  /* what pat-model computes from it: seconds per byte, as before (1 / (1 * 125e6)) */
  double r = 0;
  CHECK(cli_rate("--rate", "1gbit", &r, &err) == 0 && 1.0 / (r / 8) == 1.0 / 125e6, "beta from 1gbit");
  static const char *bad[] = {"fast", "1mb", "1bps", "1 gbit", "1gbit/h", "1Mbitt", "gbit"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    r = -1;
    CHECK(cli_rate("--rate", bad[i], &r, &err) == -1 && r == -1, "rate \"%s\" accepted", bad[i]);
    CHECK(HAS("is not a rate") && HAS("a bare number is bit/s"), "rate \"%s\": %s", bad[i], err.text);
  }
  CHECK(cli_rate("--rate", "0gbit", &r, &err) == -1 && HAS("out of range"), "zero rate: %s", err.text);
  CHECK(cli_rate("--rate", "-1gbit", &r, &err) == -1 && HAS("negative"), "negative rate: %s", err.text);
  return 0;
}

static int reals(void) {
  double x = 0;
  CHECK(cli_real("--noise", "0.02", 0, 1, &x, &err) == 0 && x == 0.02, "0.02");
  CHECK(cli_real("--skew", "-5", -INFINITY, INFINITY, &x, &err) == 0 && x == -5, "negative real");
  CHECK(cli_real("--skew", "+1e-3", -INFINITY, INFINITY, &x, &err) == 0 && x == 1e-3, "exponent");
  static const char *bad[] = {"abc", "1.0x", "--1", "1e", "nan", "0x1p3"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    CHECK(cli_real("--noise", bad[i], 0, 1, &x, &err) == -1 && HAS("is not a number"), "real \"%s\": %s", bad[i],
          err.text);
  CHECK(cli_real("--noise", "2", 0, 1, &x, &err) == -1 && !strcmp(err.text, "--noise: \"2\" is out of range (0..1)"),
        "range: %s", err.text);
  CHECK(cli_real("--ratio", "-1", 0, INFINITY, &x, &err) == -1 && HAS("(at least 0)"), "open range: %s", err.text);
  CHECK(cli_real("--x", "1e999", -INFINITY, INFINITY, &x, &err) == -1 && HAS("out of range"), "infinite: %s", err.text);
  CHECK(cli_real("--noise", "", 0, 1, &x, &err) == -1 && HAS("empty value"), "empty: %s", err.text);
  return 0;
}

static int choices(void) {
  static const char *const kinds[] = {"uniform", "late", "csv"};
  int k = -1;
  CHECK(cli_choice("--pap", "late", "pattern kind", kinds, 3, &k, &err) == 0 && k == 1, "late");
  CHECK(cli_choice("--pap", "CSV", "pattern kind", kinds, 3, &k, &err) == 0 && k == 2, "any case");
  CHECK(cli_choice("--pap", "lat", "pattern kind", kinds, 3, &k, &err) == -1 && k == 2, "no abbreviations");
  CHECK(!strcmp(err.text, "--pap: unknown pattern kind \"lat\" (valid: uniform, late, csv)"), "message: %s", err.text);
  static const char *const algs[] = {NULL, "ring", NULL, "bdr"}; /* NULL: not offered */
  CHECK(cli_choice("--alg", "bdr", "algorithm", algs, 4, &k, &err) == 0 && k == 3, "index in the table");
  CHECK(cli_choice("--alg", "native", "algorithm", algs, 4, &k, &err) == -1 &&
            !strcmp(err.text, "--alg: unknown algorithm \"native\" (valid: ring, bdr)"),
        "holes are not offered: %s", err.text);
  return 0;
}

static int lists(void) {
  uint64_t c[4];
  int n = -1;
  CHECK(cli_count_list("--sizes", "1k,64k,1M", 0, UINT64_MAX, c, 4, &n, &err) == 0 && n == 3 && c[0] == 1024 &&
            c[1] == 65536 && c[2] == 1048576,
        "count list");
  CHECK(cli_count_list("-P", "8", 2, 4096, c, 4, &n, &err) == 0 && n == 1 && c[0] == 8, "one item");
  CHECK(cli_count_list("--sizes", "1k,,2k", 0, UINT64_MAX, c, 4, &n, &err) == -1 &&
            !strcmp(err.text, "--sizes: empty item in \"1k,,2k\""),
        "empty item: %s", err.text);
  CHECK(cli_count_list("--sizes", "1k,2k,", 0, UINT64_MAX, c, 4, &n, &err) == -1 && HAS("empty item"),
        "trailing comma");
  CHECK(cli_count_list("--sizes", ",1k", 0, UINT64_MAX, c, 4, &n, &err) == -1 && HAS("empty item"), "leading comma");
  CHECK(cli_count_list("--sizes", "", 0, UINT64_MAX, c, 4, &n, &err) == -1 && !strcmp(err.text, "--sizes: empty list"),
        "empty list: %s", err.text);
  CHECK(cli_count_list("--sizes", "1,2,3,4,5", 0, UINT64_MAX, c, 4, &n, &err) == -1 && HAS("more than 4 items"),
        "too many: %s", err.text);
  CHECK(cli_count_list("-P", "8,1x", 2, 4096, c, 4, &n, &err) == -1 && HAS("-P: \"1x\" is not a count"),
        "the bad item is named: %s", err.text);
  CHECK(cli_count_list("-P", "8,1", 2, 4096, c, 4, &n, &err) == -1 && HAS("\"1\" is out of range (2..4096)"),
        "items are range checked: %s", err.text);

  double t[4];
  int tau[4];
  CHECK(cli_time_list("--delays", "0,4tau,5ms", CLI_S, t, tau, 4, &n, &err) == 0 && n == 3 && t[0] == 0 && !tau[0] &&
            t[1] == 4 && tau[1] && t[2] == 5 * 1e-3 && !tau[2],
        "time list with tau");
  CHECK(cli_time_list("--delays", "0,4tau", CLI_S, t, NULL, 4, &n, &err) == -1 && HAS("is not a time"),
        "no tau without flags");
  double a[4];
  CHECK(cli_real_list("--arrivals", "2,0,0.5,0", 0, 1e9, a, 4, &n, &err) == 0 && n == 4 && a[0] == 2 && a[2] == 0.5,
        "real list");
  CHECK(cli_real_list("--arrivals", "2,-1", 0, 1e9, a, 4, &n, &err) == -1 && HAS("out of range"), "real list range");

  static const char *const algs[] = {"ring", "nex", "rdb"};
  int id[4];
  CHECK(cli_choice_list("--algs", "rdb,ring,rdb", "algorithm", algs, 3, id, 4, &n, &err) == 0 && n == 3 &&
            id[0] == 2 && id[1] == 0 && id[2] == 2,
        "choice list keeps order and repeats");
  CHECK(cli_choice_list("--algs", "ring,foo", "algorithm", algs, 3, id, 4, &n, &err) == -1 &&
            HAS("unknown algorithm \"foo\" (valid: ring, nex, rdb)"),
        "choice list: %s", err.text);
  return 0;
}

static int options(void) {
  char *argv[] = {"prog", "--P", "4", "--alg=bdr", "-P8", "--quiet", "--quiet=1", "-x", "-5", "--empty=", "file", "-N"};
  cli_args a;
  cli_args_init(&a, (int)(sizeof argv / sizeof *argv), argv);
  CHECK(cli_args_next(&a) && cli_args_is(&a, "-P|--P") && !cli_args_is(&a, "-P"), "--P");
  const char *v = cli_args_value(&a, &err);
  CHECK(v && !strcmp(v, "4"), "value from the next argument");
  CHECK(cli_args_next(&a) && cli_args_is(&a, "--alg") && !strcmp(cli_args_value(&a, &err), "bdr"), "--alg=bdr");
  CHECK(cli_args_next(&a) && cli_args_is(&a, "-P|--P") && !strcmp(cli_args_value(&a, &err), "8"), "-P8");
  CHECK(cli_args_next(&a) && cli_args_is(&a, "--quiet") && cli_args_flag(&a, &err) == 0, "flag");
  CHECK(cli_args_next(&a) && cli_args_is(&a, "--quiet") && cli_args_flag(&a, &err) == -1 &&
            !strcmp(err.text, "--quiet takes no value (see --help)"),
        "flag with a value: %s", err.text);
  CHECK(cli_args_next(&a) && cli_args_is(&a, "-x") && !strcmp(cli_args_value(&a, &err), "-5"),
        "a value may start with '-'");
  CHECK(cli_args_next(&a) && cli_args_is(&a, "--empty") && !strcmp(cli_args_value(&a, &err), ""), "--empty=");
  CHECK(cli_args_next(&a) && !strcmp(a.opt, "file") && cli_args_unknown(&a, &err) == -1 &&
            !strcmp(err.text, "unknown option file (see --help)"),
        "unknown: %s", err.text);
  CHECK(cli_args_next(&a) && cli_args_is(&a, "-N") && cli_args_value(&a, &err) == NULL &&
            !strcmp(err.text, "-N needs a value (see --help)"),
        "missing value: %s", err.text);
  CHECK(!cli_args_next(&a), "end");
  return 0;
}

/* the value parsers through the walker: the option's name in the message */
static int option_values(void) {
  char *argv[] = {"prog", "-P", "5000", "--N=1m", "--max-delay", "2tau", "--noise", "x", "--size", "64KiB", "--seed"};
  cli_args a;
  cli_args_init(&a, (int)(sizeof argv / sizeof *argv), argv);
  int P = 7, in_tau = 0;
  uint64_t N = 0, size = 0, seed = 5;
  double delay = 0, noise = 0.5;
  CHECK(cli_args_next(&a) && cli_args_int(&a, 1, 4096, &P, &err) == -1 && P == 7 &&
            !strcmp(err.text, "-P: \"5000\" is out of range (1..4096)"),
        "int option: %s", err.text);
  CHECK(cli_args_next(&a) && cli_args_count(&a, 1, UINT64_MAX, &N, &err) == 0 && N == 1048576, "count option");
  CHECK(cli_args_next(&a) && cli_args_time(&a, CLI_MS, &delay, &in_tau, &err) == 0 && delay == 2 && in_tau,
        "time option");
  CHECK(cli_args_next(&a) && cli_args_real(&a, 0, 1, &noise, &err) == -1 && noise == 0.5 &&
            HAS("--noise: \"x\" is not a number"),
        "real option: %s", err.text);
  CHECK(cli_args_next(&a) && cli_args_bytes(&a, 1, UINT64_MAX, &size, &err) == 0 && size == 65536, "bytes option");
  CHECK(cli_args_next(&a) && cli_args_count(&a, 0, UINT64_MAX, &seed, &err) == -1 && seed == 5 &&
            !strcmp(err.text, "--seed needs a value (see --help)"),
        "missing value: %s", err.text);
  return 0;
}

int main(void) {
  if (counts() || bytes() || times() || rates() || reals() || choices() || lists() || options() || option_values())
    return 1;
  return TEST_RESULT();
}
