/*
 * Fuzz test of the two parsers libpat feeds from outside: the model file
 * (random mutations of a committed one) and the settings (random values of
 * every environment variable).  Each case has its own seed, derived from the
 * run's seed, and is generated from it alone, so a failure reproduces with
 * --case SEED.  A case that takes longer than --case-timeout seconds (a hang)
 * or crashes prints its seed and fails the run.
 *
 *   fuzz_parsers --model FILE [--seed S] [--models N] [--settings N] [--case SEED]
 *
 * A parser must return: success, or an error with a message.  Nothing else
 * is asserted (the mutated files are mostly invalid).
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/model_file.h"
#include "runtime/settings.h"

static volatile sig_atomic_t in_case;
static char case_text[128]; /* what runs now, for the signal handlers */

static void on_signal(int sig) {
  /* async-signal-safe: write and _exit only */
  const char *what = sig == SIGALRM ? "HANG (case timeout) in " : "CRASH (signal) in ";
  if (write(2, what, strlen(what)) < 0 || write(2, case_text, strlen(case_text)) < 0 || write(2, "\n", 1) < 0) {
  }
  _exit(3);
}

static uint64_t rng_state;
static uint64_t next_u64(void) { /* splitmix64: every case from its seed alone */
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static size_t below(size_t n) { return n ? (size_t)(next_u64() % n) : 0; }

static const char *tokens[] = {"\r", "\n", "\r\n", " ", "\t", "#", "-", "0", "1e309", "-1", "nan", "inf", "1e-400",
                               "99999999999999999999999", "default", "intra", "inter", "time", "P", "eager", "made",
                               "link", "ring", "native", "ard", "bogus", "0x1p3", "", "# libpat model v2",
                               "# libpat model v9"};

/* One mutation of buf (len bytes used, cap allocated). */
static size_t mutate(char *buf, size_t len, size_t cap) {
  switch (below(8)) {
    case 0: /* flip a byte */
      if (len) buf[below(len)] = (char)(1 + below(255));
      break;
    case 1: { /* insert a token */
      const char *t = tokens[below(sizeof tokens / sizeof *tokens)];
      size_t tl = strlen(t), at = below(len + 1);
      if (len + tl >= cap) break;
      memmove(buf + at + tl, buf + at, len - at);
      memcpy(buf + at, t, tl);
      len += tl;
      break;
    }
    case 2: { /* delete a range */
      size_t at = below(len + 1), n = below(64);
      if (at + n > len) n = len - at;
      memmove(buf + at, buf + at + n, len - at - n);
      len -= n;
      break;
    }
    case 3: /* truncate */
      len = below(len + 1);
      break;
    case 4: { /* duplicate a range */
      size_t at = below(len + 1), n = below(200);
      if (at + n > len) n = len - at;
      if (len + n >= cap) break;
      memmove(buf + at + n, buf + at, len - at);
      len += n;
      break;
    }
    case 5: /* the last line ends in a carriage return, no newline (a Windows editor) */
      while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r')) len--;
      if (len + 1 < cap) buf[len++] = '\r';
      break;
    case 6: /* every newline a CRLF */
      for (size_t i = 0; i < len && len + 1 < cap; i++)
        if (buf[i] == '\n') {
          memmove(buf + i + 1, buf + i, len - i);
          buf[i] = '\r';
          len++;
          i++;
        }
      break;
    default: /* a very long line */
      if (len + 2000 < cap) {
        size_t at = below(len + 1);
        memmove(buf + at + 2000, buf + at, len - at);
        memset(buf + at, '9', 2000);
        len += 2000;
      }
  }
  return len;
}

static int model_case(const char *orig, size_t olen, uint64_t seed) {
  snprintf(case_text, sizeof case_text, "model case --case %llu", (unsigned long long)seed);
  rng_state = seed;
  size_t cap = olen * 4 + 8192, len = olen;
  char *buf = malloc(cap);
  memcpy(buf, orig, olen);
  int n = 1 + (int)below(6);
  for (int i = 0; i < n; i++) len = mutate(buf, len, cap - 1);
  buf[len] = '\0';
  pat_model_params mp;
  char err[512] = "";
  int rc = pat_model_parse(buf, "fuzz.model", &mp, err, sizeof err);
  free(buf);
  if (rc != PAT_OK && !err[0]) {
    fprintf(stderr, "FAIL %s: an error without a message\n", case_text);
    return 1;
  }
  return 0;
}

static const char *values[] = {"", "0", "1", "2", "-1", "auto", "always", "ring", "ard", "native", "bogus", "1e9",
                               "99999999999999999999", "-0", "0x10", " 1", "1 ", "nan", "inf", "3.5", "core",
                               "/nonexistent/model", "0,50000000,-50000000", ",,,", "1,2,x", "ringx", "AUTO"};

static int settings_case(uint64_t seed) {
  snprintf(case_text, sizeof case_text, "settings case --case %llu", (unsigned long long)seed);
  rng_state = seed;
  for (int i = 0; i < pat_setting_count; i++) {
    const char *name = pat_setting_table[i].name;
    size_t pick = below(sizeof values / sizeof *values + 3);
    if (pick >= sizeof values / sizeof *values) {
      if (pick == sizeof values / sizeof *values) {
        unsetenv(name);
      } else { /* random bytes */
        char v[64];
        size_t n = below(sizeof v);
        for (size_t k = 0; k < n; k++) v[k] = (char)(1 + below(255));
        v[n] = '\0';
        setenv(name, v, 1);
      }
    } else {
      setenv(name, values[pick], 1);
    }
  }
  pat_settings s;
  char err[512] = "";
  int rc = pat_settings_read(&s, err, sizeof err);
  if (rc != 0 && !err[0]) {
    fprintf(stderr, "FAIL %s: an error without a message\n", case_text);
    return 1;
  }
  return 0;
}

static char *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16;
  char *t = malloc(cap);
  *len = fread(t, 1, cap - 1, f);
  t[*len] = '\0';
  fclose(f);
  return t;
}

int main(int argc, char **argv) {
  const char *model = NULL;
  unsigned long long seed = 1, one = 0;
  long models = 1000, settings = 300, timeout = 10;
  int have_one = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--model")) model = argv[i + 1];
    else if (!strcmp(argv[i], "--seed")) seed = strtoull(argv[i + 1], NULL, 10);
    else if (!strcmp(argv[i], "--models")) models = atol(argv[i + 1]);
    else if (!strcmp(argv[i], "--settings")) settings = atol(argv[i + 1]);
    else if (!strcmp(argv[i], "--case-timeout")) timeout = atol(argv[i + 1]);
    else if (!strcmp(argv[i], "--case")) one = strtoull(argv[i + 1], NULL, 10), have_one = 1;
  }
  size_t olen = 0;
  char *orig = model ? read_all(model, &olen) : NULL;
  if (!orig) {
    fprintf(stderr, "usage: fuzz_parsers --model FILE [--seed S] [--models N] [--settings N] [--case SEED]\n");
    return 2;
  }
  signal(SIGALRM, on_signal);
  signal(SIGSEGV, on_signal);
  signal(SIGBUS, on_signal);
  signal(SIGFPE, on_signal);
  signal(SIGABRT, on_signal);
  int failed = 0;
  if (have_one) { /* reproduce one case: model cases have odd seeds, settings cases even ones */
    alarm((unsigned)timeout);
    failed = (one & 1) ? model_case(orig, olen, one) : settings_case(one);
    printf("case %llu: %s\n", one, failed ? "FAILED" : "passed");
    return failed;
  }
  printf("fuzz_parsers: seed %llu, %ld model files, %ld setting sets (reproduce a case with --case SEED)\n", seed,
         models, settings);
  fflush(stdout);
  for (long i = 0; i < models; i++) {
    alarm((unsigned)timeout);
    failed += model_case(orig, olen, (seed * 1000003ull + (unsigned long long)i) * 2 + 1);
  }
  for (long i = 0; i < settings; i++) {
    alarm((unsigned)timeout);
    failed += settings_case((seed * 1000003ull + (unsigned long long)i) * 2);
  }
  alarm(0);
  printf("%ld model files, %ld setting sets: %d failed\n", models, settings, failed);
  free(orig);
  return failed ? 1 : 0;
}
