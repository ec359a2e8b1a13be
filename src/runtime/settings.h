/*
 * Settings: every PAT_* environment variable, read once (at PAT_Init, or by
 * the drop-in before MPI_Init), parsed strictly and range-checked, from one
 * table.  The settings table of docs/settings.md and pat_info print the same table
 * (pat_settings_markdown), and a unit test checks docs/settings.md against it.
 *
 * Scope says who decides a setting's value in a job:
 *  - JOB:   every rank must have the same value; PAT_Init compares them and
 *           fails on every rank, naming the setting, when they differ;
 *  - ROOT:  world rank 0's value holds for every rank (it is broadcast);
 *  - RANK:  each rank uses its own value.
 */
#ifndef PAT_SETTINGS_H
#define PAT_SETTINGS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum pat_setting_scope { PAT_SCOPE_JOB, PAT_SCOPE_ROOT, PAT_SCOPE_RANK };

enum pat_bind_kind { PAT_BIND_NONE, PAT_BIND_PU, PAT_BIND_LAST, PAT_BIND_SIBLING };
enum pat_exchange_mode { PAT_EXCHANGE_AUTO, PAT_EXCHANGE_ALWAYS };

#define PAT_SETTING_TEXT 4096

/* PAT_ALLREDUCE's two settings that are not one of libpat's schedules. */
#define PAT_ALLREDUCE_NATIVE (-1) /* the MPI library's own, always */
#define PAT_ALLREDUCE_AUTO (-2)   /* chosen by measurement (decide/allreduce_choice.h) */

typedef struct pat_settings {
  int alg;           /* PAT_ALG: an algorithm id or PAT_ALG_AUTO */
  int allreduce;     /* PAT_ALLREDUCE: an all-reduce id (algorithms/allreduce.h), PAT_ALLREDUCE_NATIVE or _AUTO */
  int reproducible;  /* PAT_REPRODUCIBLE: all-reduce results that do not depend on arrivals or timings */
  int exchange;      /* PAT_EXCHANGE: enum pat_exchange_mode */
  int thread;        /* PAT_THREAD: run the background thread */
  int one_node_auto; /* PAT_ONE_NODE=auto: auto bets on one node too */
  int node_size;     /* PAT_NODE_SIZE: ranks of a shared-memory node taken as nodes of this many; 0: the MPI's nodes */
  int plan_ahead_auto; /* PAT_PLAN_AHEAD_AUTO: auto keeps a plan-ahead algorithm (experimental) */
  int clock_samples; /* PAT_CLOCK_SAMPLES: ping-pongs per rank for the clock offsets */
  int channels;      /* PAT_CHANNELS: libpat's duplicates of world for non-blocking contexts (channels.h) */
  char model[PAT_SETTING_TEXT]; /* PAT_MODEL: model file path, "" if unset */
  int report;        /* PAT_REPORT: finalize report (resolved from PAT_VERBOSE when unset) */
  int verbose;       /* PAT_VERBOSE: 0, 1, 2 */
  int bind;          /* PAT_BIND: enum pat_bind_kind */
  int bind_pu;       /* PAT_BIND=pu:N: N */
  int trace;         /* PAT_TRACE: print every message the executor posts */
  char clock_skew[PAT_SETTING_TEXT]; /* PAT_TEST_CLOCK_SKEW: validated "ns,ns,..." or "" */
  int send_window;   /* PAT_SEND_WINDOW: every schedule's send window, -1 = as its algorithm builds it */
  int wait_nap_us;   /* PAT_WAIT_NAP: the foreground's nap in data-flow waits (us), -1 = from the model */
  int pace_mbit;     /* PAT_PACE: the link's rate for pacing forwards (Mbit/s), -1 = the model's link line, 0 = off */
  char timeline[PAT_SETTING_TEXT]; /* PAT_TIMELINE: file prefix of the per-op timeline, "" if off */
  char decisions[PAT_SETTING_TEXT]; /* PAT_DECISIONS: file prefix of auto's decision log, "" if off */
} pat_settings;

typedef struct pat_setting {
  const char *name;    /* the environment variable */
  const char *values;  /* what it accepts (for messages, docs/settings.md, pat_info) */
  const char *dflt;    /* its default, as text */
  int scope;           /* enum pat_setting_scope */
  const char *meaning; /* one line for the table of docs/settings.md */
  /* Parse text into s; 0, or -1 with the reason in why. */
  int (*parse)(const char *text, pat_settings *s, char *why, size_t len);
  /* The parsed value as a number, to compare JOB settings across ranks (NULL if not JOB). */
  int64_t (*value_key)(const pat_settings *s);
} pat_setting;

extern const pat_setting pat_setting_table[];
extern const int pat_setting_count;

/* Defaults, then every variable of the table that is set and not empty.
 * Returns 0, or -1 with "PAT_X=value: reason; valid: ..." in err (the first
 * bad variable).  Resolves PAT_REPORT's default from PAT_VERBOSE. */
int pat_settings_read(pat_settings *s, char *err, size_t errlen);
/* At PAT_Init, on every rank (collective over MPI_COMM_WORLD): every rank
 * compares what it read (local_error: its own reading's error, "" if none)
 * with the others'; MPI_SUCCESS, or an MPI error on every rank alike when a
 * rank could not read its settings or a JOB setting differs between ranks. */
int pat_settings_agree(const pat_settings *s, const char *local_error, int world_rank);

/* The clock skew of one world rank under PAT_TEST_CLOCK_SKEW (0 if unset or
 * not listed). */
int64_t pat_settings_clock_skew(const pat_settings *s, int world_rank);

/* auto, exchanging as it sees fit, and PAT_ONE_NODE=native: the settings
 * under which auto defers to NATIVE on one node
 * (decide/engine.h, pat_engine_one_node_native), and a one-node job needs
 * no background thread (unless PAT_ALLREDUCE names a schedule of libpat's,
 * which the thread runs). */
int pat_settings_defer_one_node(const pat_settings *s);

/* An MPI thread level's name ("MPI_THREAD_SINGLE" ...), for messages of the
 * runtime and the drop-in; "an unknown thread level" for any other value. */
const char *pat_thread_level_name(int level);

/* The table of settings of docs/settings.md (a markdown table, header included). */
void pat_settings_markdown(FILE *out);

/* name=value (or "(unset: default)") for every setting, one per line, each
 * prefixed with indent (pat_info). */
void pat_settings_print(FILE *out, const char *indent);

#endif
