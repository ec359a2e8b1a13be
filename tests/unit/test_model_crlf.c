/* The model file saved by a Windows editor: CRLF line ends, and a last line
 * ending in a carriage return without a newline (issue 25, defect 6: the
 * parser looped forever on it).  An alarm turns a hang into a failure. */
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "model/model_file.h"
#include "testutil.h"

static int parses(const char *text) {
  pat_model_params mp;
  char err[512] = "";
  int rc = pat_model_parse(text, "crlf.model", &mp, err, sizeof err);
  if (rc != PAT_OK) fprintf(stderr, "  %s\n", err);
  return rc == PAT_OK && mp.dflt.set;
}

int main(void) {
  alarm(20);
  CHECK(parses("# libpat model v2\r\ndefault 1e-5 1e-9\r\n"), "CRLF lines");
  CHECK(parses("# libpat model v2\r\ndefault 1e-5 1e-9\r"), "last line ends in CR, no LF");
  CHECK(parses("# libpat model v2\ndefault 1e-5 1e-9\r"), "LF lines, last one CR");
  CHECK(parses("# libpat model v2\ndefault 1e-5 1e-9"), "no line end at all");
  CHECK(parses("# libpat model v2\r\ndefault 1e-5 1e-9\r\n\r"), "a last empty line of one CR");
  return TEST_RESULT();
}
