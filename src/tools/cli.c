/* The command-line parser of the tools and benchmarks: see cli.h. */
#include "tools/cli.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char COUNT_FORMS[] = "a whole number, optionally with k, m or g = 2^10, 2^20, 2^30: 64, 512k, 1M";
static const char BYTES_FORMS[] =
    "bytes: a whole number, optionally with k, m or g = 2^10, 2^20, 2^30 and B: 4096, 64k, 64KiB, 1MB";
static const char REAL_FORMS[] = "a plain number: 0.5, -2, 1e-3";
static const char RATE_FORMS[] = "a number > 0 with bit, kbit, mbit, gbit or tbit (steps of 10^3), or B, kB, MB "
                                 "or GB (bytes), optionally /s; a bare number is bit/s: 1gbit, 500mbit, 125MB/s";

static int fail(cli_error *err, const char *fmt, ...) {
  if (err) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->text, sizeof err->text, fmt, ap);
    va_end(ap);
  }
  return -1;
}

/* ---- numbers ------------------------------------------------------------ */

/* End of the unsigned decimal number at s (digits, an optional fraction, an
 * optional exponent: "1", "1.5", ".5", "1e6", "2.5E-3"); s if there is none.
 * Scanned by hand so that strtod's other forms (inf, nan, hex, leading
 * blanks) are never accepted. */
static const char *number_end(const char *s) {
  const char *p = s;
  int digits = 0;
  while (isdigit((unsigned char)*p)) p++, digits++;
  if (*p == '.')
    for (p++; isdigit((unsigned char)*p); p++) digits++;
  if (!digits) return s;
  if (*p == 'e' || *p == 'E') {
    const char *q = p + 1;
    if (*q == '+' || *q == '-') q++;
    if (isdigit((unsigned char)*q)) {
      while (isdigit((unsigned char)*q)) q++;
      p = q;
    }
  }
  return p;
}

/* The unsigned number at the start of text, or -1 with the message for an
 * empty, negative or non-numeric text. */
static int leading_number(const char *opt, const char *text, const char *kind, const char *forms, double *v,
                          const char **end, cli_error *err) {
  if (!*text) return fail(err, "%s: empty value; expected a %s (%s)", opt, kind, forms);
  if (*text == '-' && number_end(text + 1) != text + 1)
    return fail(err, "%s: \"%s\" is negative; expected a %s (%s)", opt, text, kind, forms);
  *end = number_end(text);
  if (*end == text) return fail(err, "%s: \"%s\" is not a %s (%s)", opt, text, kind, forms);
  *v = strtod(text, NULL);
  return 0;
}

static int only_digits(const char *s, const char *end) {
  for (; s < end; s++)
    if (!isdigit((unsigned char)*s)) return 0;
  return 1;
}

/* k, m, g (either case) at *p: its multiplier, and *p moved past it; else 1. */
static uint64_t binary_multiplier(const char **p) {
  switch (**p) {
  case 'k': case 'K': (*p)++; return 1ull << 10;
  case 'm': case 'M': (*p)++; return 1ull << 20;
  case 'g': case 'G': (*p)++; return 1ull << 30;
  default: return 1;
  }
}

/* Counts and byte sizes: the number times its multiplier, exactly (digits
 * only: integer arithmetic, so any 64-bit value; with a fraction or an
 * exponent: a double, whose result must be whole). */
static int whole_number(const char *opt, const char *text, int bytes, uint64_t min, uint64_t max, uint64_t *out,
                        cli_error *err) {
  const char *kind = bytes ? "byte size" : "count", *forms = bytes ? BYTES_FORMS : COUNT_FORMS;
  const char *end;
  double d;
  if (leading_number(opt, text, kind, forms, &d, &end, err)) return -1;
  const char *p = end;
  uint64_t mult = binary_multiplier(&p);
  if (bytes && mult > 1 && (p[0] == 'i' || p[0] == 'I') && (p[1] == 'B' || p[1] == 'b')) p++;
  if (bytes && (*p == 'B' || *p == 'b')) p++;
  if (*p) return fail(err, "%s: \"%s\" is not a %s (%s)", opt, text, kind, forms);
  uint64_t v;
  if (only_digits(text, end)) {
    errno = 0;
    unsigned long long u = strtoull(text, NULL, 10);
    if (errno == ERANGE || u > UINT64_MAX / mult) goto out_of_range;
    v = (uint64_t)u * mult;
  } else {
    d *= (double)mult;
    if (d != floor(d)) return fail(err, "%s: \"%s\" is not a %s (%s)", opt, text, kind, forms);
    if (!(d < 18446744073709551616.0)) goto out_of_range;
    v = (uint64_t)d;
  }
  if (v < min || v > max) goto out_of_range;
  *out = v;
  return 0;
out_of_range:
  return fail(err, "%s: \"%s\" is out of range (%llu..%llu)", opt, text, (unsigned long long)min,
              (unsigned long long)max);
}

int cli_count(const char *opt, const char *text, uint64_t min, uint64_t max, uint64_t *out, cli_error *err) {
  return whole_number(opt, text, 0, min, max, out, err);
}

int cli_bytes(const char *opt, const char *text, uint64_t min, uint64_t max, uint64_t *out, cli_error *err) {
  return whole_number(opt, text, 1, min, max, out, err);
}

int cli_int(const char *opt, const char *text, int min, int max, int *out, cli_error *err) {
  uint64_t v;
  if (whole_number(opt, text, 0, min < 0 ? 0 : (uint64_t)min, max < 0 ? 0 : (uint64_t)max, &v, err)) return -1;
  *out = (int)v;
  return 0;
}

static int range_fail(cli_error *err, const char *opt, const char *text, double min, double max) {
  if (isinf(max)) return fail(err, "%s: \"%s\" is out of range (at least %g)", opt, text, min);
  if (isinf(min)) return fail(err, "%s: \"%s\" is out of range (at most %g)", opt, text, max);
  return fail(err, "%s: \"%s\" is out of range (%g..%g)", opt, text, min, max);
}

int cli_real(const char *opt, const char *text, double min, double max, double *out, cli_error *err) {
  const char *digits = text + (*text == '-' || *text == '+');
  if (!*text) return fail(err, "%s: empty value; expected a number (%s)", opt, REAL_FORMS);
  const char *end = number_end(digits);
  if (end == digits || *end) return fail(err, "%s: \"%s\" is not a number (%s)", opt, text, REAL_FORMS);
  double v = strtod(text, NULL);
  if (!isfinite(v) || v < min || v > max) return range_fail(err, opt, text, min, max);
  *out = v;
  return 0;
}

/* ---- times and rates ---------------------------------------------------- */

static const char *unit_name(cli_unit u) {
  switch (u) {
  case CLI_S: return "seconds";
  case CLI_MS: return "milliseconds";
  case CLI_US: return "microseconds";
  default: return "nanoseconds";
  }
}

/* v, given in unit `from`, in unit `to`.  Equal units leave v untouched and
 * the factors are exact literals, so "50ms" in seconds is 50 * 1e-3, as the
 * tools computed it before. */
static double convert(double v, cli_unit from, cli_unit to) {
  static const double factor[] = {1e-9, 1e-6, 1e-3, 1, 1e3, 1e6, 1e9};
  return from == to ? v : v * factor[((int)from - (int)to + 9) / 3];
}

int cli_time(const char *opt, const char *text, cli_unit unit, double *out, int *in_tau, cli_error *err) {
  char forms[200];
  snprintf(forms, sizeof forms, "a number with s, ms, us or ns; a bare number is in %s%s", unit_name(unit),
           in_tau ? "; or a multiple of tau: 4tau" : "");
  const char *end;
  double v;
  if (leading_number(opt, text, "time", forms, &v, &end, err)) return -1;
  static const struct { const char *name; cli_unit unit; } units[] = {
      {"s", CLI_S}, {"ms", CLI_MS}, {"us", CLI_US}, {"ns", CLI_NS}};
  cli_unit given = unit; /* a bare number is in the option's unit */
  int known = !*end;
  for (size_t i = 0; i < sizeof units / sizeof *units && !known; i++)
    if (strcasecmp(end, units[i].name) == 0) given = units[i].unit, known = 1;
  if (known) {
    double t = convert(v, given, unit);
    if (!isfinite(t)) return range_fail(err, opt, text, 0, INFINITY);
    *out = t;
    if (in_tau) *in_tau = 0;
    return 0;
  }
  if (in_tau && strcasecmp(end, "tau") == 0 && isfinite(v)) {
    *out = v;
    *in_tau = 1;
    return 0;
  }
  return fail(err, "%s: \"%s\" is not a time (%s)", opt, text, forms);
}

int cli_rate(const char *opt, const char *text, double *bits_per_s, cli_error *err) {
  const char *end;
  double v;
  if (leading_number(opt, text, "rate", RATE_FORMS, &v, &end, err)) return -1;
  char unit[32];
  size_t n = strlen(end);
  if (n >= sizeof unit) return fail(err, "%s: \"%s\" is not a rate (%s)", opt, text, RATE_FORMS);
  memcpy(unit, end, n + 1);
  if (n >= 2 && strcmp(unit + n - 2, "/s") == 0) unit[n - 2] = '\0';
  /* bits in any case ("Gbit"); bytes only as written: "MB" is not "mb" */
  static const struct { const char *name; double bits; int any_case; } units[] = {
      {"", 1, 0},   {"bit", 1, 1}, {"kbit", 1e3, 1}, {"mbit", 1e6, 1}, {"gbit", 1e9, 1}, {"tbit", 1e12, 1},
      {"B", 8, 0},  {"kB", 8e3, 0}, {"MB", 8e6, 0},  {"GB", 8e9, 0}};
  for (size_t i = 0; i < sizeof units / sizeof *units; i++)
    if (units[i].any_case ? strcasecmp(unit, units[i].name) == 0 : strcmp(unit, units[i].name) == 0) {
      double r = v * units[i].bits;
      if (!(r > 0) || !isfinite(r)) return fail(err, "%s: \"%s\" is out of range (%s)", opt, text, RATE_FORMS);
      *bits_per_s = r;
      return 0;
    }
  return fail(err, "%s: \"%s\" is not a rate (%s)", opt, text, RATE_FORMS);
}

/* ---- choices ------------------------------------------------------------ */

int cli_choice(const char *opt, const char *text, const char *what, const char *const *names, int n, int *out,
               cli_error *err) {
  for (int i = 0; i < n; i++)
    if (names[i] && strcasecmp(text, names[i]) == 0) {
      *out = i;
      return 0;
    }
  if (!err) return -1;
  int k = snprintf(err->text, sizeof err->text, "%s: unknown %s \"%s\" (valid:", opt, what, text);
  for (int i = 0, first = 1; i < n && k > 0 && (size_t)k < sizeof err->text; i++)
    if (names[i]) {
      k += snprintf(err->text + k, sizeof err->text - (size_t)k, "%s %s", first ? "" : ",", names[i]);
      first = 0;
    }
  if (k > 0 && (size_t)k < sizeof err->text) snprintf(err->text + k, sizeof err->text - (size_t)k, ")");
  return -1;
}

/* ---- lists -------------------------------------------------------------- */

int cli_list(const char *opt, const char *text, int cap, cli_item_fn item, void *ctx, int *n, cli_error *err) {
  if (!*text) return fail(err, "%s: empty list", opt);
  int count = 0;
  for (const char *p = text;; p++) {
    size_t len = strcspn(p, ",");
    char buf[256];
    if (len == 0) return fail(err, "%s: empty item in \"%s\"", opt, text);
    if (len >= sizeof buf) return fail(err, "%s: an item of the list is too long", opt);
    if (count == cap) return fail(err, "%s: more than %d items in \"%s\"", opt, cap, text);
    memcpy(buf, p, len);
    buf[len] = '\0';
    if (item(opt, buf, count, ctx, err)) return -1;
    count++;
    p += len;
    if (!*p) break;
  }
  *n = count;
  return 0;
}

typedef struct count_items { uint64_t min, max, *out; } count_items;
static int count_item(const char *opt, const char *item, int i, void *ctx, cli_error *err) {
  count_items *c = ctx;
  return cli_count(opt, item, c->min, c->max, &c->out[i], err);
}

int cli_count_list(const char *opt, const char *text, uint64_t min, uint64_t max, uint64_t *out, int cap, int *n,
                   cli_error *err) {
  count_items c = {min, max, out};
  return cli_list(opt, text, cap, count_item, &c, n, err);
}

typedef struct real_items { double min, max, *out; } real_items;
static int real_item(const char *opt, const char *item, int i, void *ctx, cli_error *err) {
  real_items *c = ctx;
  return cli_real(opt, item, c->min, c->max, &c->out[i], err);
}

int cli_real_list(const char *opt, const char *text, double min, double max, double *out, int cap, int *n,
                  cli_error *err) {
  real_items c = {min, max, out};
  return cli_list(opt, text, cap, real_item, &c, n, err);
}

typedef struct time_items { cli_unit unit; double *out; int *in_tau; } time_items;
static int time_item(const char *opt, const char *item, int i, void *ctx, cli_error *err) {
  time_items *c = ctx;
  return cli_time(opt, item, c->unit, &c->out[i], c->in_tau ? &c->in_tau[i] : NULL, err);
}

int cli_time_list(const char *opt, const char *text, cli_unit unit, double *out, int *in_tau, int cap, int *n,
                  cli_error *err) {
  time_items c = {unit, out, in_tau};
  return cli_list(opt, text, cap, time_item, &c, n, err);
}

typedef struct choice_items { const char *what; const char *const *names; int nnames; int *out; } choice_items;
static int choice_item(const char *opt, const char *item, int i, void *ctx, cli_error *err) {
  choice_items *c = ctx;
  return cli_choice(opt, item, c->what, c->names, c->nnames, &c->out[i], err);
}

int cli_choice_list(const char *opt, const char *text, const char *what, const char *const *names, int nnames,
                    int *out, int cap, int *n, cli_error *err) {
  choice_items c = {what, names, nnames, out};
  return cli_list(opt, text, cap, choice_item, &c, n, err);
}

/* ---- options ------------------------------------------------------------ */

void cli_args_init(cli_args *a, int argc, char **argv) {
  memset(a, 0, sizeof *a);
  a->argc = argc;
  a->argv = argv;
  a->next = 1;
}

int cli_args_next(cli_args *a) {
  if (a->next >= a->argc) return 0;
  const char *arg = a->argv[a->next++];
  const char *eq = strncmp(arg, "--", 2) == 0 ? strchr(arg, '=') : NULL;
  size_t len = strlen(arg);
  a->attached = NULL;
  if (eq) { /* --name=value */
    len = (size_t)(eq - arg);
    a->attached = eq + 1;
  } else if (arg[0] == '-' && arg[1] && arg[1] != '-' && arg[2]) { /* -Xvalue */
    len = 2;
    a->attached = arg + 2;
  }
  if (len >= sizeof a->name) len = sizeof a->name - 1;
  memcpy(a->name, arg, len);
  a->name[len] = '\0';
  a->opt = a->name;
  return 1;
}

int cli_args_is(const cli_args *a, const char *names) {
  size_t len = strlen(a->opt);
  for (const char *p = names;; p++) {
    size_t n = strcspn(p, "|");
    if (n == len && strncmp(p, a->opt, n) == 0) return 1;
    p += n;
    if (!*p) return 0;
  }
}

const char *cli_args_value(cli_args *a, cli_error *err) {
  if (a->attached) return a->attached;
  if (a->next < a->argc) return a->argv[a->next++];
  fail(err, "%s needs a value (see --help)", a->opt);
  return NULL;
}

int cli_args_text(cli_args *a, const char **out, cli_error *err) {
  const char *v = cli_args_value(a, err);
  if (!v) return -1;
  *out = v;
  return 0;
}

int cli_args_count(cli_args *a, uint64_t min, uint64_t max, uint64_t *out, cli_error *err) {
  const char *v = cli_args_value(a, err);
  return v ? cli_count(a->opt, v, min, max, out, err) : -1;
}

int cli_args_int(cli_args *a, int min, int max, int *out, cli_error *err) {
  const char *v = cli_args_value(a, err);
  return v ? cli_int(a->opt, v, min, max, out, err) : -1;
}

int cli_args_bytes(cli_args *a, uint64_t min, uint64_t max, uint64_t *out, cli_error *err) {
  const char *v = cli_args_value(a, err);
  return v ? cli_bytes(a->opt, v, min, max, out, err) : -1;
}

int cli_args_real(cli_args *a, double min, double max, double *out, cli_error *err) {
  const char *v = cli_args_value(a, err);
  return v ? cli_real(a->opt, v, min, max, out, err) : -1;
}

int cli_args_time(cli_args *a, cli_unit unit, double *out, int *in_tau, cli_error *err) {
  const char *v = cli_args_value(a, err);
  return v ? cli_time(a->opt, v, unit, out, in_tau, err) : -1;
}

int cli_args_flag(const cli_args *a, cli_error *err) {
  return a->attached ? fail(err, "%s takes no value (see --help)", a->opt) : 0;
}

int cli_args_unknown(const cli_args *a, cli_error *err) {
  return fail(err, "unknown option %s (see --help)", a->opt);
}

int cli_args_parse(int argc, char **argv, cli_option_fn option, void *opts, cli_error *err) {
  cli_args a;
  cli_args_init(&a, argc, argv);
  while (cli_args_next(&a)) {
    if (cli_args_is(&a, "-h|--help")) return 1;
    if (option(&a, opts, err)) return -1;
  }
  return 0;
}

void cli_args_parse_or_exit(int argc, char **argv, cli_option_fn option, void *opts, const char *prog,
                            void (*usage)(FILE *)) {
  cli_error err;
  int rc = cli_args_parse(argc, argv, option, opts, &err);
  if (rc > 0) {
    usage(stdout);
    exit(0);
  }
  if (rc < 0) {
    fprintf(stderr, "%s: %s\n", prog, err.text);
    exit(2);
  }
}
