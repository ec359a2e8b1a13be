/* The model file: parser and writer (format in model_file.h). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/measured.h"
#include "model/model_file.h"

#define HEADER "# libpat model v"
#define VERSION PAT_MODEL_FILE_VERSION
#define OLDEST_VERSION 1

static int vfail(char *err, size_t errlen, const char *name, int line, const char *fmt, va_list ap) {
  char what[256];
  vsnprintf(what, sizeof what, fmt, ap);
  if (err && errlen) {
    if (line > 0)
      snprintf(err, errlen, "%s:%d: %s", name, line, what);
    else
      snprintf(err, errlen, "%s: %s", name, what);
  }
  return PAT_EINVAL;
}

static int fail(char *err, size_t errlen, const char *name, int line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int rc = vfail(err, errlen, name, line, fmt, ap);
  va_end(ap);
  return rc;
}

/* a number >= 0 and finite */
static int number(const char *tok, double *v) {
  if (!tok) return 0;
  char *end;
  errno = 0;
  *v = strtod(tok, &end);
  return end != tok && *end == '\0' && errno == 0 && isfinite(*v) && *v >= 0;
}

/* index for a name: 0..PAT_ALG_COUNT-1 algorithms, PAT_ALG_COUNT for "default" */
static int name_index(const char *tok) {
  if (!tok) return -1;
  if (strcasecmp(tok, "default") == 0) return PAT_ALG_COUNT;
  for (int i = 0; i < PAT_ALG_COUNT; i++)
    if (strcasecmp(tok, pat_algorithms[i].name) == 0) return i;
  return -1;
}

/* "default, native, ring, ..." (or without "default") from the registry,
 * for messages. */
static const char *names_list(char *buf, size_t size, int with_default) {
  size_t used = (size_t)snprintf(buf, size, "%s", with_default ? "default" : "");
  for (int i = 0; i < PAT_ALG_COUNT && used < size; i++)
    used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? ", " : "", pat_algorithms[i].name);
  return buf;
}

/* ---- parsing ---- */

typedef struct parser {
  pat_model_params m; /* what the file says so far */
  int version;        /* the header's */
  int seen_inter[PAT_ALG_COUNT + 1], seen_intra[PAT_ALG_COUNT + 1], seen_eager; /* per name, "default" last */
  int P_line;                    /* line of "P" (0: none yet) */
  int link_line;                 /* line of "link" (0: none yet) */
  int gamma_line;                /* line of "gamma" (0: none yet) */
  int time_line[PAT_ALG_COUNT];  /* line of each algorithm's first "time" (0: none) */
  int last_time_line;            /* line of the last "time" (0: none) */
  int b2b_line[PAT_ALG_COUNT];   /* line of each algorithm's first "b2b" (0: none) */
  int last_b2b_line;             /* line of the last "b2b" (0: none) */
  const char *name;   /* for messages */
  int line;           /* current line, from 1 */
  char *err;
  size_t errlen;
} parser;

/* An error on the current line. */
static int line_error(const parser *ps, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int rc = vfail(ps->err, ps->errlen, ps->name, ps->line, fmt, ap);
  va_end(ap);
  return rc;
}

/* An error on an earlier line. */
static int at_line_error(const parser *ps, int line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int rc = vfail(ps->err, ps->errlen, ps->name, line, fmt, ap);
  va_end(ap);
  return rc;
}

/* An error about the whole file. */
static int file_error(const parser *ps, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int rc = vfail(ps->err, ps->errlen, ps->name, 0, fmt, ap);
  va_end(ap);
  return rc;
}

/* Copy the line at *p into buf without its "\n" or "\r\n" and move *p past
 * it.  Returns 0, or -1 if the line does not fit in size bytes. */
static int next_line(const char **p, char *buf, size_t size) {
  const char *nl = strchr(*p, '\n');
  size_t len = nl ? (size_t)(nl - *p) : strlen(*p);
  if (len >= size) return -1;
  memcpy(buf, *p, len);
  buf[len] = '\0';
  /* advance by the line as read, before the CR is stripped: a last line
   * ending in CR without LF would otherwise be read again forever */
  *p = nl ? nl + 1 : *p + len;
  if (len && buf[len - 1] == '\r') buf[--len] = '\0';
  return 0;
}

/* Line 1: the header with a version this parser reads. */
static int check_header(parser *ps, const char *buf) {
  if (strncmp(buf, HEADER, strlen(HEADER)) != 0)
    return line_error(ps, "not a libpat model file (the first line must be \"%s%d\")", HEADER, VERSION);
  const char *v = buf + strlen(HEADER);
  char *end;
  long ver = strtol(v, &end, 10);
  while (*end == ' ' || *end == '\t') end++;
  if (end == v || *end) return line_error(ps, "bad version in \"%s\"", buf);
  if (ver > VERSION)
    return line_error(ps,
                      "model file version %ld is newer than this libpat reads (versions %d to %d): use the libpat "
                      "that wrote it, or recalibrate with this one (pat-calibrate, then pat-fit)",
                      ver, OLDEST_VERSION, VERSION);
  if (ver < OLDEST_VERSION)
    return line_error(ps, "unsupported model file version %ld (this libpat reads versions %d to %d)", ver,
                      OLDEST_VERSION, VERSION);
  ps->version = (int)ver;
  return PAT_OK;
}

/* A "made" line is free text, kept whole ('#' included) and appended to
 * m.made ("; " between lines while there is room).  Returns 1 if buf is one. */
static int take_made_line(parser *ps, const char *buf) {
  const char *q = buf;
  while (isspace((unsigned char)*q)) q++;
  if (!(strncmp(q, "made", 4) == 0 && (q[4] == '\0' || isspace((unsigned char)q[4])))) return 0;
  q += 4;
  while (isspace((unsigned char)*q)) q++;
  char *made = ps->m.made;
  size_t used = strlen(made);
  if (used && used + 2 < sizeof ps->m.made) {
    strcat(made, "; ");
    used += 2;
  }
  snprintf(made + used, sizeof ps->m.made - used, "%s", q);
  return 1;
}

/* "eager <bytes>" */
static int parse_eager(parser *ps, char **tok, int nt) {
  double v;
  if (nt != 2 || !number(tok[1], &v)) return line_error(ps, "expected \"eager <bytes>\" with a number >= 0");
  if (ps->seen_eager++) return line_error(ps, "eager given twice");
  ps->m.eager_bytes = v;
  return PAT_OK;
}

/* "[inter|intra] <algorithm|default> <alpha> <beta>" */
static int parse_link(parser *ps, char **tok, int nt) {
  int intra = strcmp(tok[0], "intra") == 0, inter = strcmp(tok[0], "inter") == 0;
  int first = intra || inter;
  if (first && nt < 2) return line_error(ps, "expected \"%s <algorithm|default> <alpha> <beta>\"", tok[0]);
  int idx = name_index(tok[first]);
  char names[256];
  if (idx < 0) {
    if (first && nt > 1)
      return line_error(ps, "unknown algorithm \"%s\" (one of: %s)", tok[1], names_list(names, sizeof names, 1));
    return line_error(ps,
                      "unknown keyword \"%s\" (expected made, eager, link, gamma, intra, inter, P, time, b2b, or an "
                      "algorithm: %s)",
                      tok[0], names_list(names, sizeof names, 1));
  }
  double a, b;
  if (nt != first + 3)
    return line_error(ps, "expected \"%s%s <alpha> <beta>\" (seconds, seconds per byte)",
                      first ? (intra ? "intra " : "inter ") : "", tok[first]);
  if (!number(tok[first + 1], &a)) return line_error(ps, "alpha \"%s\" is not a finite number >= 0", tok[first + 1]);
  if (!number(tok[first + 2], &b)) return line_error(ps, "beta \"%s\" is not a finite number >= 0", tok[first + 2]);
  if (a == 0 && b == 0) return line_error(ps, "alpha and beta are both 0");
  pat_link_model *lm = idx == PAT_ALG_COUNT ? &ps->m.dflt : &ps->m.alg[idx];
  if (intra) {
    if (ps->seen_intra[idx]++) return line_error(ps, "intra %s given twice", tok[1]);
    lm->has_intra = 1;
    lm->intra.alpha = a;
    lm->intra.beta = b;
  } else {
    if (ps->seen_inter[idx]++) return line_error(ps, "%s given twice", tok[first]);
    lm->set = 1;
    lm->inter.alpha = a;
    lm->inter.beta = b;
  }
  return PAT_OK;
}

/* "link <alpha> <beta>": one pair of ranks alone on the network.  Kept
 * apart from the default and per-algorithm pairs: those are fitted on whole
 * all-gathers, whose transfers share ports, this one is a ping-pong's.  Read
 * in any version (no other line depends on it). */
static int parse_pair(parser *ps, char **tok, int nt) {
  double a, b;
  if (nt != 3) return line_error(ps, "expected \"link <alpha> <beta>\" (seconds, seconds per byte)");
  if (!number(tok[1], &a)) return line_error(ps, "link alpha \"%s\" is not a finite number >= 0", tok[1]);
  if (!number(tok[2], &b)) return line_error(ps, "link beta \"%s\" is not a finite number >= 0", tok[2]);
  if (a == 0 && b == 0) return line_error(ps, "link alpha and beta are both 0");
  if (ps->link_line) return line_error(ps, "link given twice (first on line %d)", ps->link_line);
  ps->link_line = ps->line;
  ps->m.link_set = 1;
  ps->m.link.alpha = a;
  ps->m.link.beta = b;
  return PAT_OK;
}

/* "gamma <seconds per byte>": a reduction's combination.  Read in any
 * version, as link is: a file without it loads with the default (no other
 * line depends on it). */
static int parse_gamma(parser *ps, char **tok, int nt) {
  double g;
  if (nt != 2 || !number(tok[1], &g))
    return line_error(ps, "expected \"gamma <seconds per byte>\" with a finite number >= 0");
  if (ps->gamma_line) return line_error(ps, "gamma given twice (first on line %d)", ps->gamma_line);
  ps->gamma_line = ps->line;
  ps->m.gamma_set = 1;
  ps->m.gamma = g;
  return PAT_OK;
}

/* "P <processes>" (version 2) */
static int parse_P(parser *ps, char **tok, int nt) {
  char *end = NULL;
  long v = nt == 2 ? strtol(tok[1], &end, 10) : 0;
  if (nt != 2 || end == tok[1] || *end || v < 1 || v > 1L << 30)
    return line_error(ps, "expected \"P <processes>\" with a whole number >= 1");
  if (ps->P_line) return line_error(ps, "P given twice (first on line %d)", ps->P_line);
  ps->P_line = ps->line;
  ps->m.measured.P = (int)v;
  return PAT_OK;
}

/* "nodes <H>": the nodes the calibration ran on (its ranks' node map), so
 * that a job on another number of nodes can tell the file is not its own. */
static int parse_nodes(parser *ps, char **tok, int nt) {
  char *end = NULL;
  long v = nt == 2 ? strtol(tok[1], &end, 10) : 0;
  if (nt != 2 || end == tok[1] || *end || v < 1 || v > 1L << 30)
    return line_error(ps, "expected \"nodes <nodes>\" with a whole number >= 1");
  if (ps->m.calib_nodes) return line_error(ps, "nodes given twice");
  ps->m.calib_nodes = (int)v;
  return PAT_OK;
}

/* "placement <hex>": which of the calibration's ranks shared a node (model/placement.h). */
static int parse_placement(parser *ps, char **tok, int nt) {
  char *end = NULL;
  unsigned long long v = nt == 2 ? strtoull(tok[1], &end, 16) : 0;
  if (nt != 2 || end == tok[1] || *end || v == 0) return line_error(ps, "expected \"placement <hex>\", not 0");
  if (ps->m.calib_placement) return line_error(ps, "placement given twice");
  ps->m.calib_placement = (uint64_t)v;
  return PAT_OK;
}

/* "time|b2b <algorithm> <block bytes> <seconds>" (version 2): into the
 * balanced table or the back-to-back one. */
static int parse_time(parser *ps, char **tok, int nt) {
  char names[256];
  const char *kind = tok[0];
  int b2b = strcmp(kind, "b2b") == 0;
  if (nt != 4) return line_error(ps, "expected \"%s <algorithm> <block bytes> <seconds>\"", kind);
  int alg = name_index(tok[1]);
  if (alg < 0 || alg == PAT_ALG_COUNT)
    return line_error(ps, "unknown algorithm \"%s\" (one of: %s)", tok[1], names_list(names, sizeof names, 0));
  double bytes, seconds;
  if (!number(tok[2], &bytes) || bytes == 0)
    return line_error(ps, "block bytes \"%s\" is not a finite number > 0", tok[2]);
  if (!number(tok[3], &seconds) || seconds == 0)
    return line_error(ps, "seconds \"%s\" is not a finite number > 0", tok[3]);
  switch (pat_measured_add(b2b ? &ps->m.b2b : &ps->m.measured, alg, bytes, seconds)) {
  case PAT_MEASURED_DUPLICATE:
    return line_error(ps, "%s %s %s given twice", kind, tok[1], tok[2]);
  case PAT_MEASURED_FULL:
    return line_error(ps, "more than %d %s sizes for %s", PAT_MEASURED_MAX, b2b ? "b2b" : "measured", tok[1]);
  case PAT_MEASURED_ADDED:
    break;
  default:
    return line_error(ps, "bad %s line", kind);
  }
  int *first = b2b ? ps->b2b_line : ps->time_line;
  if (!first[alg]) first[alg] = ps->line;
  if (b2b) ps->last_b2b_line = ps->line;
  else ps->last_time_line = ps->line;
  return PAT_OK;
}

/* "# libpat-version <v>" and "# platform <text>": comments to a libpat that does not know them, so a
 * file with them loads in an older libpat and one without them in this one.  Returns 1 if buf is one. */
static int take_origin_line(parser *ps, const char *buf) {
  static const char version[] = "# " PAT_MODEL_VERSION_KEY " ", platform[] = "# " PAT_MODEL_PLATFORM_KEY " ";
  const char *q = buf;
  while (isspace((unsigned char)*q)) q++;
  char *to;
  size_t size;
  if (strncmp(q, version, strlen(version)) == 0) {
    q += strlen(version);
    to = ps->m.libpat_version;
    size = sizeof ps->m.libpat_version;
  } else if (strncmp(q, platform, strlen(platform)) == 0) {
    q += strlen(platform);
    to = ps->m.platform;
    size = sizeof ps->m.platform;
  } else {
    return 0;
  }
  while (isspace((unsigned char)*q)) q++;
  size_t n = strlen(q);
  while (n && isspace((unsigned char)q[n - 1])) n--;
  snprintf(to, size, "%.*s", (int)n, q);
  return 1;
}

/* Any line after the header: made, blank or comment, eager, link, P, time, b2b, or parameters. */
static int parse_line(parser *ps, char *buf) {
  if (take_made_line(ps, buf) || take_origin_line(ps, buf)) return PAT_OK;
  char *hash = strchr(buf, '#');
  if (hash) *hash = '\0';
  char *tok[8];
  int nt = 0;
  for (char *save = NULL, *t = strtok_r(buf, " \t\r", &save); t; t = strtok_r(NULL, " \t\r", &save)) {
    if (nt == 8) return line_error(ps, "too many fields");
    tok[nt++] = t;
  }
  if (nt == 0) return PAT_OK;
  if (strcmp(tok[0], "eager") == 0) return parse_eager(ps, tok, nt);
  if (strcmp(tok[0], "link") == 0) return parse_pair(ps, tok, nt);
  if (strcmp(tok[0], "gamma") == 0) return parse_gamma(ps, tok, nt);
  if (strcmp(tok[0], "nodes") == 0) return parse_nodes(ps, tok, nt);
  if (strcmp(tok[0], "placement") == 0) return parse_placement(ps, tok, nt);
  if (strcmp(tok[0], "P") == 0 || strcmp(tok[0], "time") == 0 || strcmp(tok[0], "b2b") == 0) {
    if (ps->version < 2)
      return line_error(ps, "\"%s\" lines need model file version 2 (the first line says v%d)", tok[0], ps->version);
    return tok[0][0] == 'P' ? parse_P(ps, tok, nt) : parse_time(ps, tok, nt);
  }
  return parse_link(ps, tok, nt);
}

/* The measured times: P with time lines and only with them, and at least
 * two sizes for every algorithm that has any. */
static int check_measured(const parser *ps) {
  if (ps->last_b2b_line && !ps->last_time_line)
    return at_line_error(ps, ps->last_b2b_line, "b2b lines need the time lines (and a \"P <processes>\" line)");
  if (ps->last_time_line && !ps->P_line)
    return at_line_error(ps, ps->last_time_line,
                         "time lines need a \"P <processes>\" line (how many processes they were measured on)");
  if (ps->P_line && !ps->last_time_line) return at_line_error(ps, ps->P_line, "P given but no time lines");
  for (int a = 0; a < PAT_ALG_COUNT; a++) {
    if (ps->m.measured.alg[a].n == 1)
      return at_line_error(ps, ps->time_line[a],
                           "time %s: one measured size; at least 2 are needed (above the largest size the time "
                           "follows the last two)",
                           pat_algorithms[a].name);
    if (ps->m.b2b.alg[a].n == 1)
      return at_line_error(ps, ps->b2b_line[a], "b2b %s: one measured size; at least 2 are needed",
                           pat_algorithms[a].name);
  }
  return PAT_OK;
}

/* After the last line: a header, a default pair, an inter-node pair
 * wherever there is an intra-node one, and consistent measured times. */
static int check_complete(const parser *ps) {
  if (ps->line == 0) return file_error(ps, "empty file (the first line must be \"%s%d\")", HEADER, VERSION);
  if (!ps->m.dflt.set) return file_error(ps, "no \"default <alpha> <beta>\" line");
  for (int i = 0; i <= PAT_ALG_COUNT; i++)
    if (ps->seen_intra[i] && !ps->seen_inter[i]) {
      const char *nm = i == PAT_ALG_COUNT ? "default" : pat_algorithms[i].name;
      return file_error(ps, "\"intra %s\" needs a \"%s <alpha> <beta>\" line too", nm, nm);
    }
  return check_measured(ps);
}

int pat_model_parse(const char *text, const char *name, pat_model_params *mp, char *err, size_t errlen) {
  if (!name) name = "model";
  if (!text || !mp) return fail(err, errlen, name, 0, "no text");
  parser ps = {.name = name, .err = err, .errlen = errlen};
  pat_model_params_init(&ps.m, 0, 0);
  ps.m.dflt.set = 0;
  char buf[1024];
  for (const char *p = text; *p;) {
    ps.line++;
    if (next_line(&p, buf, sizeof buf)) return line_error(&ps, "line too long");
    int rc = ps.line == 1 ? check_header(&ps, buf) : parse_line(&ps, buf);
    if (rc) return rc;
  }
  int rc = check_complete(&ps);
  if (ps.last_b2b_line) ps.m.b2b.P = ps.m.measured.P;
  if (!rc) *mp = ps.m;
  return rc;
}

int pat_model_read(const char *path, pat_model_params *mp, char *err, size_t errlen) {
  FILE *f = fopen(path, "rb");
  if (!f) return fail(err, errlen, path, 0, "cannot open: %s", strerror(errno));
  size_t cap = 4096, n = 0;
  char *text = malloc(cap);
  int rc = PAT_OK;
  for (;;) {
    if (!text) {
      rc = fail(err, errlen, path, 0, "out of memory");
      break;
    }
    if (n + 1 >= cap) {
      if (cap >= (1u << 20)) {
        rc = fail(err, errlen, path, 0, "too large for a model file");
        break;
      }
      char *t = realloc(text, cap * 2);
      if (!t) {
        rc = fail(err, errlen, path, 0, "out of memory");
        break;
      }
      text = t;
      cap *= 2;
    }
    size_t got = fread(text + n, 1, cap - 1 - n, f);
    n += got;
    if (got == 0) break;
  }
  if (!rc && ferror(f)) rc = fail(err, errlen, path, 0, "read error");
  fclose(f);
  if (!rc) {
    text[n] = '\0';
    if (strlen(text) != n) rc = fail(err, errlen, path, 0, "not a text file (NUL byte)");
  }
  if (!rc) rc = pat_model_parse(text, path, mp, err, errlen);
  free(text);
  return rc;
}

static int emit(char **buf, size_t *len, size_t *cap, const char *fmt, ...) {
  va_list ap;
  for (;;) {
    va_start(ap, fmt);
    int k = vsnprintf(*buf + *len, *cap - *len, fmt, ap);
    va_end(ap);
    if (k < 0) return -1;
    if ((size_t)k < *cap - *len) {
      *len += (size_t)k;
      return 0;
    }
    char *b = realloc(*buf, *cap * 2 + (size_t)k);
    if (!b) return -1;
    *buf = b;
    *cap = *cap * 2 + (size_t)k;
  }
}

/* The header, the "made" lines (one per "; "-separated part) and eager. */
static int emit_preamble(char **buf, size_t *len, size_t *cap, const pat_model_params *mp) {
  int bad = emit(buf, len, cap,
                 "%s%d\n# alpha in seconds, beta in seconds per byte; a transfer of m bytes costs alpha + beta*m\n",
                 HEADER, VERSION);
  if (!bad && mp->libpat_version[0])
    bad = emit(buf, len, cap, "# " PAT_MODEL_VERSION_KEY " %s\n", mp->libpat_version);
  if (!bad && mp->platform[0]) bad = emit(buf, len, cap, "# " PAT_MODEL_PLATFORM_KEY " %s\n", mp->platform);
  for (const char *s = mp->made; !bad && *s;) {
    const char *e = strstr(s, "; ");
    size_t k = e ? (size_t)(e - s) : strlen(s);
    bad = emit(buf, len, cap, "made %.*s\n", (int)k, s);
    s += k + (e ? 2 : 0);
  }
  if (!bad && mp->eager_bytes > 0) bad = emit(buf, len, cap, "eager %.17g\n", mp->eager_bytes);
  return bad;
}

/* The fitted lines: default first, then by algorithm id. */
static int emit_links(char **buf, size_t *len, size_t *cap, const pat_model_params *mp) {
  int bad = 0;
  for (int i = -1; i < PAT_ALG_COUNT && !bad; i++) {
    const pat_link_model *lm = i < 0 ? &mp->dflt : &mp->alg[i];
    const char *nm = i < 0 ? "default" : pat_algorithms[i].name;
    if (!lm->set) continue;
    bad = emit(buf, len, cap, "%-8s %.17g %.17g\n", nm, lm->inter.alpha, lm->inter.beta);
    if (!bad && lm->has_intra)
      bad = emit(buf, len, cap, "intra %-8s %.17g %.17g\n", nm, lm->intra.alpha, lm->intra.beta);
  }
  return bad;
}

/* The pair alone on the network, when measured: right after the fitted
 * pairs, the file's other (alpha, beta) lines. */
static int emit_pair(char **buf, size_t *len, size_t *cap, const pat_model_params *mp) {
  if (!mp->link_set) return 0;
  return emit(buf, len, cap, "link     %.17g %.17g # one pair alone on the network (ping-pong)\n", mp->link.alpha,
              mp->link.beta);
}

/* gamma, when measured: after the link, the file's other per-byte cost. */
static int emit_gamma(char **buf, size_t *len, size_t *cap, const pat_model_params *mp) {
  if (!mp->gamma_set) return 0;
  return emit(buf, len, cap, "gamma    %.17g # s per byte of a reduction's combination (MPI_Reduce_local)\n",
              mp->gamma);
}

int pat_model_origin_note(const pat_model_params *mp, const char *version, const char *platform, char *out,
                          size_t size) {
  int n = 0;
  out[0] = '\0';
  if (!mp->libpat_version[0])
    n += snprintf(out + n, size - (size_t)n, "made by an unknown version of libpat (a file from before the "
                  "\"" PAT_MODEL_VERSION_KEY "\" line)");
  else if (version && strcmp(mp->libpat_version, version) != 0)
    n += snprintf(out + n, size - (size_t)n, "made by libpat %s, this is %s", mp->libpat_version, version);
  if ((size_t)n < size && mp->platform[0] && platform && strcmp(mp->platform, platform) != 0)
    n += snprintf(out + n, size - (size_t)n, "%scalibrated on \"%s\", this platform is \"%s\"", n ? "; " : "",
                  mp->platform, platform);
  return n > 0;
}

const char *pat_model_gamma_note(const pat_model_params *mp) {
  if (mp && mp->gamma_set) return NULL;
  return "no gamma line (a model file from before reductions, or none): a reduction's combinations cost the "
         "default " PAT_MODEL_GAMMA_TEXT " s per byte; recalibrate with pat-calibrate + pat-fit to measure it";
}

/* One table's lines ("time" or "b2b"), by algorithm id, then size. */
static int emit_table(char **buf, size_t *len, size_t *cap, const char *kind, const pat_measured *t) {
  int bad = 0;
  for (int a = 0; a < PAT_ALG_COUNT && !bad; a++)
    for (int i = 0; i < t->alg[a].n && !bad; i++)
      bad = emit(buf, len, cap, "%s %-8s %.17g %.17g\n", kind, pat_algorithms[a].name, t->alg[a].bytes[i],
                 t->alg[a].seconds[i]);
  return bad;
}

/* P, the time lines and the b2b lines; nothing without a table. */
static int emit_measured(char **buf, size_t *len, size_t *cap, const pat_measured *t, const pat_measured *b2b) {
  if (t->P < 1) return 0;
  int bad = emit(buf, len, cap,
                 "P %d\n# time <algorithm> <block bytes> <seconds>: mean elapsed time over ranks measured on "
                 "balanced arrivals on P processes\n",
                 t->P);
  if (!bad) bad = emit_table(buf, len, cap, "time", t);
  if (!bad && b2b->P == t->P)
    bad = emit(buf, len, cap, "# b2b <algorithm> <block bytes> <seconds>: the same, calls back to back\n") ||
          emit_table(buf, len, cap, "b2b", b2b);
  return bad;
}

char *pat_model_format(const pat_model_params *mp) {
  size_t cap = 1024, len = 0;
  char *buf = malloc(cap);
  if (!buf) return NULL;
  buf[0] = '\0';
  int bad = emit_preamble(&buf, &len, &cap, mp);
  if (!bad) bad = emit_links(&buf, &len, &cap, mp);
  if (!bad) bad = emit_pair(&buf, &len, &cap, mp);
  if (!bad) bad = emit_gamma(&buf, &len, &cap, mp);
  if (!bad && mp->calib_nodes > 0)
    bad = emit(&buf, &len, &cap, "nodes %d # the calibration's nodes: a job on another number of nodes ignores this file\n",
               mp->calib_nodes);
  if (!bad && mp->calib_placement)
    bad = emit(&buf, &len, &cap, "placement %016llx # which of its ranks shared a node: a job of as many ranks placed "
               "otherwise ignores this file\n", (unsigned long long)mp->calib_placement);
  if (!bad) bad = emit_measured(&buf, &len, &cap, &mp->measured, &mp->b2b);
  if (bad) {
    free(buf);
    return NULL;
  }
  return buf;
}

int pat_model_write(const char *path, const pat_model_params *mp, char *err, size_t errlen) {
  char *text = pat_model_format(mp);
  if (!text) return fail(err, errlen, path, 0, "out of memory");
  FILE *f = fopen(path, "w");
  if (!f) {
    free(text);
    return fail(err, errlen, path, 0, "cannot create: %s", strerror(errno));
  }
  size_t n = strlen(text);
  int ok = fwrite(text, 1, n, f) == n;
  ok = (fclose(f) == 0) && ok;
  free(text);
  return ok ? PAT_OK : fail(err, errlen, path, 0, "write error");
}
