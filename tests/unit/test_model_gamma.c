/* The model file's gamma line: read, written back exactly, refused when
 * malformed or given twice; a file without it (every file from before
 * reductions) loads with the default and a note saying so. */
#include <stdlib.h>
#include <string.h>

#include "model/model_file.h"
#include "testutil.h"

#define V2 "# libpat model v2\ndefault 5e-05 8e-09\n"

static int parse_fails(const char *text, const char *want) {
  pat_model_params mp;
  char err[512] = "";
  int rc = pat_model_parse(text, "t.model", &mp, err, sizeof err);
  if (rc == PAT_OK || !strstr(err, want)) {
    fprintf(stderr, "  expected an error with '%s', got '%s'\n", want, err);
    return 0;
  }
  return 1;
}

int main(void) {
  pat_model_params mp, back;
  char err[512] = "";

  /* an old file: the default, and the note */
  CHECK(pat_model_parse(V2 "link 1e-5 1e-9\n", "old", &mp, err, sizeof err) == PAT_OK, "%s", err);
  CHECK(!mp.gamma_set && mp.gamma == PAT_MODEL_GAMMA_DEFAULT, "old file: gamma %g set %d", mp.gamma, mp.gamma_set);
  const char *note = pat_model_gamma_note(&mp);
  CHECK(note && strstr(note, "default " PAT_MODEL_GAMMA_TEXT) && strstr(note, "pat-calibrate"), "note: %s",
        note ? note : "none");
  CHECK(pat_model_gamma_note(NULL) != NULL, "no model: no note");
  char *text = pat_model_format(&mp);
  CHECK(text && !strstr(text, "gamma"), "a default gamma written out: %s", text ? text : "");
  free(text);
  /* version 1 reads it too, as link */
  CHECK(pat_model_parse("# libpat model v1\ndefault 5e-05 8e-09\ngamma 1e-10\n", "v1", &mp, err, sizeof err) ==
                PAT_OK &&
            mp.gamma_set && mp.gamma == 1e-10,
        "v1 with gamma: %s", err);

  /* a measured one: kept, no note, the same bits after a round trip */
  CHECK(pat_model_parse(V2 "gamma 1.2345678901234567e-10 # MPI_Reduce_local\n", "new", &mp, err, sizeof err) ==
            PAT_OK,
        "%s", err);
  CHECK(mp.gamma_set && mp.gamma == 1.2345678901234567e-10, "gamma %.17g", mp.gamma);
  CHECK(pat_model_gamma_note(&mp) == NULL, "a note beside a measured gamma");
  text = pat_model_format(&mp);
  CHECK(text && pat_model_parse(text, "back", &back, err, sizeof err) == PAT_OK, "round trip: %s", err);
  CHECK(back.gamma_set && memcmp(&back.gamma, &mp.gamma, sizeof mp.gamma) == 0, "gamma differs after the round trip");
  free(text);
  CHECK(pat_model_parse(V2 "gamma 0\n", "zero", &mp, err, sizeof err) == PAT_OK && mp.gamma_set && mp.gamma == 0,
        "gamma 0 refused: %s", err);

  CHECK(parse_fails(V2 "gamma\n", "t.model:3: expected \"gamma <seconds per byte>\""), "gamma without a value");
  CHECK(parse_fails(V2 "gamma -1e-10\n", "t.model:3: expected \"gamma"), "a negative gamma");
  CHECK(parse_fails(V2 "gamma inf\n", "t.model:3: expected \"gamma"), "an infinite gamma");
  CHECK(parse_fails(V2 "gamma 1e-10 2e-10\n", "t.model:3: expected \"gamma"), "two values");
  CHECK(parse_fails(V2 "gamma 1e-10\ngamma 2e-10\n", "t.model:4: gamma given twice (first on line 3)"),
        "gamma twice");
  return TEST_RESULT();
}
