/* Settings: every variable parses strictly (bad values name the valid ones),
 * defaults hold, and the settings table of docs/settings.md is exactly the table the
 * library prints (pat_settings_markdown). */
#include <stdlib.h>
#include <string.h>

#include "algorithms/algorithms.h"
#include "runtime/settings.h"
#include "testutil.h"

static void clear_env(void) {
  for (int i = 0; i < pat_setting_count; i++) unsetenv(pat_setting_table[i].name);
}

/* Read with one variable set; returns the status and leaves err. */
static int read_one(const char *name, const char *value, pat_settings *s, char *err, size_t len) {
  clear_env();
  setenv(name, value, 1);
  err[0] = '\0';
  return pat_settings_read(s, err, len);
}

static int test_parsing(void) {
  pat_settings s;
  char err[512];
  clear_env();
  CHECK(pat_settings_read(&s, err, sizeof err) == 0, "defaults read");
  CHECK(s.alg == PAT_ALG_AUTO && s.thread == 1 && s.clock_samples == 20 && s.verbose == 0 && s.report == 0 &&
            s.bind == PAT_BIND_NONE && s.trace == 0 && s.model[0] == '\0' && s.clock_skew[0] == '\0',
        "defaults");

  const struct { const char *name, *value; } good[] = {
      {"PAT_ALG", "ring"}, {"PAT_ALG", "BSLB"}, {"PAT_ALG", "auto"}, {"PAT_THREAD", "0"},
      {"PAT_CLOCK_SAMPLES", "1"}, {"PAT_CLOCK_SAMPLES", "1000"}, {"PAT_VERBOSE", "2"}, {"PAT_BIND", "pu:3"},
      {"PAT_BIND", "sibling"}, {"PAT_TRACE", "1"}, {"PAT_REPORT", "1"}, {"PAT_MODEL", "/tmp/x.model"},
      {"PAT_TEST_CLOCK_SKEW", "0,-5,7"}};
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
    CHECK(read_one(good[i].name, good[i].value, &s, err, sizeof err) == 0, "%s=%s rejected: %s", good[i].name,
          good[i].value, err);
  read_one("PAT_ALG", "BSLB", &s, err, sizeof err);
  CHECK(s.alg == PAT_ALG_BSLB, "PAT_ALG=BSLB gives %d", s.alg);
  read_one("PAT_BIND", "pu:3", &s, err, sizeof err);
  CHECK(s.bind == PAT_BIND_PU && s.bind_pu == 3, "PAT_BIND=pu:3");
  read_one("PAT_VERBOSE", "2", &s, err, sizeof err);
  CHECK(s.report == 1, "PAT_VERBOSE=2 turns the report on by default");
  read_one("PAT_TEST_CLOCK_SKEW", "0,-5,7", &s, err, sizeof err);
  CHECK(pat_settings_clock_skew(&s, 1) == -5 && pat_settings_clock_skew(&s, 2) == 7 &&
            pat_settings_clock_skew(&s, 3) == 0,
        "clock skew per rank");

  const struct { const char *name, *value, *must_say; } bad[] = {
      {"PAT_ALG", "bogus", "ring"},           {"PAT_THREAD", "abc", "0, 1"},
      {"PAT_THREAD", "2", "0, 1"},            {"PAT_CLOCK_SAMPLES", "-1", "1 to 1000"},
      {"PAT_CLOCK_SAMPLES", "0", "1 to 1000"}, {"PAT_CLOCK_SAMPLES", "1000000000", "1 to 1000"},
      {"PAT_CLOCK_SAMPLES", "20x", "1 to 1000"}, {"PAT_VERBOSE", "3", "0, 1, 2"},
      {"PAT_BIND", "pu:", "pu:N"},            {"PAT_BIND", "pu:-1", "pu:N"},
      {"PAT_BIND", "core", "sibling"},        {"PAT_TRACE", "yes", "0, 1"},
      {"PAT_REPORT", "1.0", "0, 1"},          {"PAT_TEST_CLOCK_SKEW", "1,,2", "ns,ns"},
      {"PAT_TEST_CLOCK_SKEW", "1,x", "ns,ns"}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    int rc = read_one(bad[i].name, bad[i].value, &s, err, sizeof err);
    CHECK(rc != 0, "%s=%s accepted", bad[i].name, bad[i].value);
    CHECK(strstr(err, bad[i].name) && strstr(err, bad[i].value) && strstr(err, bad[i].must_say),
          "%s=%s: message \"%s\" does not name the variable, the value and the valid values", bad[i].name,
          bad[i].value, err);
  }
  clear_env();
  return 0;
}

/* Every row of the settings table of docs/settings.md is a row of the library's table, and the other way round. */
static int test_readme_table(void) {
  char path[4096];
  snprintf(path, sizeof path, "%s/docs/settings.md", PAT_SOURCE_DIR);
  FILE *f = fopen(path, "r");
  CHECK(f != NULL, "cannot open %s", path);
  if (!f) return 0;
  char *readme = calloc(1, 1 << 20);
  size_t n = fread(readme, 1, (1 << 20) - 1, f);
  fclose(f);
  readme[n] = '\0';
  char *table = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&table, &len);
  pat_settings_markdown(m);
  fclose(m);
  CHECK(strstr(readme, table) != NULL, "docs/settings.md does not hold the settings table (print it with pat_info --settings-table):\n%s",
        table);
  int rows_in_readme = 0;
  for (char *p = strstr(readme, "\n| `PAT_"); p; p = strstr(p + 1, "\n| `PAT_")) rows_in_readme++;
  CHECK(rows_in_readme == pat_setting_count, "docs/settings.md has %d setting rows, the library %d", rows_in_readme,
        pat_setting_count);
  free(table);
  free(readme);
  return 0;
}

int main(void) {
  if (test_parsing()) return 1;
  if (test_readme_table()) return 1;
  return TEST_RESULT();
}
