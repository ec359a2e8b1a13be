/*
 * One parser for the command lines of the tools (src/tools) and the benchmark
 * programs (bench/): the options themselves (cli_args) and their values.
 *
 * Every value parser is strict: the whole text must be a value of its kind,
 * within the given range.  A refusal returns -1, leaves *out unchanged and
 * puts a message in *err that names the option and the accepted forms:
 *
 *   --P: "12x" is not a count (a whole number, optionally with k, m or g = ...)
 *   --P: 5000 is out of range (1..4096)
 *
 * Success returns 0.  `opt` is only used in messages (an option name, or an
 * environment variable's).  err may be NULL.
 *
 * The forms, the same in every program:
 *   count   a whole number >= 0, optionally with k/K, m/M or g/G = 2^10, 2^20,
 *           2^30 (binary everywhere: vectors and blocks are powers of two);
 *           a decimal fraction or exponent is fine if the result is whole:
 *           64, 512k, 1M, 1.5k (= 1536), 1e6
 *   bytes   a count with an optional B or iB: 4096, 64k, 64KB, 64KiB
 *   time    a number >= 0 with s, ms, us or ns (any case); a bare number is in
 *           the option's own unit (pat-model: s; --max-delay: ms; --tau-us: us);
 *           options that say so also take multiples of tau: 4tau
 *   rate    a number > 0 with bit, kbit, mbit, gbit, tbit (any case; decimal,
 *           as links and tc count) or B, kB, MB, GB (bytes), optionally "/s";
 *           a bare number is bit/s, as in tc: 1gbit, 500mbit, 125MB/s, 1e9
 *   real    a plain number, no unit, any sign: 0.02, -5, 1e-3
 *   choice  one of a list of names (any case): uniform, late, csv
 *   lists   comma-separated items of one kind: 1k,64k,1M; no empty item
 */
#ifndef PAT_TOOLS_CLI_H
#define PAT_TOOLS_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CLI_ERR_MAX 512

/* Why a value or an option was refused. */
typedef struct cli_error {
  char text[CLI_ERR_MAX];
} cli_error;

/* ---- values ------------------------------------------------------------ */
int cli_count(const char *opt, const char *text, uint64_t min, uint64_t max, uint64_t *out, cli_error *err);
/* A count that fits an int: min >= 0. */
int cli_int(const char *opt, const char *text, int min, int max, int *out, cli_error *err);
int cli_bytes(const char *opt, const char *text, uint64_t min, uint64_t max, uint64_t *out, cli_error *err);
int cli_real(const char *opt, const char *text, double min, double max, double *out, cli_error *err);

/* Units of times, as powers of ten of a second. */
typedef enum { CLI_NS = -9, CLI_US = -6, CLI_MS = -3, CLI_S = 0 } cli_unit;
/* A time, in `unit` (also the unit of a bare number).  With in_tau not NULL,
 * "<x>tau" is accepted too: then *out = x and *in_tau = 1 (else *in_tau = 0). */
int cli_time(const char *opt, const char *text, cli_unit unit, double *out, int *in_tau, cli_error *err);
/* A link rate, in bit/s. */
int cli_rate(const char *opt, const char *text, double *bits_per_s, cli_error *err);
/* The index in names[0..n) of text (case-insensitive); NULL entries are not
 * offered.  `what` names the kind in the message: "unknown algorithm ...". */
int cli_choice(const char *opt, const char *text, const char *what, const char *const *names, int n, int *out,
               cli_error *err);

/* ---- comma lists: at most cap items into out[], their number in *n ----- */
int cli_count_list(const char *opt, const char *text, uint64_t min, uint64_t max, uint64_t *out, int cap, int *n,
                   cli_error *err);
int cli_real_list(const char *opt, const char *text, double min, double max, double *out, int cap, int *n,
                  cli_error *err);
/* in_tau: NULL (tau not accepted) or an array of cap flags */
int cli_time_list(const char *opt, const char *text, cli_unit unit, double *out, int *in_tau, int cap, int *n,
                  cli_error *err);
int cli_choice_list(const char *opt, const char *text, const char *what, const char *const *names, int nnames,
                    int *out, int cap, int *n, cli_error *err);
/* Any other kind: item(opt, item, index, ctx, err) for each item, in order. */
typedef int (*cli_item_fn)(const char *opt, const char *item, int index, void *ctx, cli_error *err);
int cli_list(const char *opt, const char *text, int cap, cli_item_fn item, void *ctx, int *n, cli_error *err);

/* ---- options ----------------------------------------------------------- *
 * Walks argv: "--name value", "--name=value", "-X value", "-Xvalue".
 *
 *   cli_args a;
 *   cli_args_init(&a, argc, argv);
 *   while (cli_args_next(&a)) {
 *     if (cli_args_is(&a, "-h|--help")) ...
 *     else if (cli_args_is(&a, "--quiet")) { if (cli_args_flag(&a, err)) return -1; quiet = 1; }
 *     else if (cli_args_is(&a, "-P|--P")) { if (cli_args_int(&a, 1, 4096, &P, err)) return -1; }
 *     else return cli_args_unknown(&a, err);
 *   }
 */
typedef struct cli_args {
  int argc;
  char **argv;
  int next;             /* index of the next argument */
  const char *opt;      /* the current option's name, "--max-delay" or "-P" */
  const char *attached; /* its value when given as --name=value or -Xvalue, else NULL */
  char name[64];
} cli_args;

void cli_args_init(cli_args *a, int argc, char **argv);
/* 1 with a->opt set to the next option, 0 after the last argument. */
int cli_args_next(cli_args *a);
/* Whether the current option is one of `names`, "|"-separated: "-N|--N". */
int cli_args_is(const cli_args *a, const char *names);
/* The current option's value (attached, else the next argument), or NULL
 * with "OPT needs a value" in *err. */
const char *cli_args_value(cli_args *a, cli_error *err);
/* The current option's value parsed by cli_count, cli_int, ... with the
 * option's name in messages: -1 if it is missing or refused. */
int cli_args_text(cli_args *a, const char **out, cli_error *err);
int cli_args_count(cli_args *a, uint64_t min, uint64_t max, uint64_t *out, cli_error *err);
int cli_args_int(cli_args *a, int min, int max, int *out, cli_error *err);
int cli_args_bytes(cli_args *a, uint64_t min, uint64_t max, uint64_t *out, cli_error *err);
int cli_args_real(cli_args *a, double min, double max, double *out, cli_error *err);
int cli_args_time(cli_args *a, cli_unit unit, double *out, int *in_tau, cli_error *err);
/* 0 for a flag without a value; -1 with a message for "--flag=value". */
int cli_args_flag(const cli_args *a, cli_error *err);
/* -1 with "unknown option OPT (see --help)" in *err. */
int cli_args_unknown(const cli_args *a, cli_error *err);

/* A program's options: 0 when it took the current option, else -1 with a message in *err. */
typedef int (*cli_option_fn)(cli_args *a, void *opts, cli_error *err);
/* Walks the whole command line, handing every option but -h/--help to option(a, opts, err):
 * 0, 1 at -h/--help (what follows it is not read), -1 when option refused one. */
int cli_args_parse(int argc, char **argv, cli_option_fn option, void *opts, cli_error *err);
/* The same for a program's main: after -h/--help usage(stdout) and exit(0); after a refusal
 * "prog: message" on stderr and exit(2). */
void cli_args_parse_or_exit(int argc, char **argv, cli_option_fn option, void *opts, const char *prog,
                            void (*usage)(FILE *));

#endif
