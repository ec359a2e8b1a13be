/* The model file: parser and writer (format in fit.h). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/fit.h"

#define HEADER "# libpat model v"
#define VERSION 1

static int fail(char *err, size_t errlen, const char *name, int line, const char *fmt, ...) {
  char what[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  if (err && errlen) {
    if (line > 0)
      snprintf(err, errlen, "%s:%d: %s", name, line, what);
    else
      snprintf(err, errlen, "%s: %s", name, what);
  }
  return PAT_EINVAL;
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

static const char *names_list(void) { return "default, native, ring, nex, rdb, bruck, lnbc, bdr, bslb, ard"; }

int pat_model_parse(const char *text, const char *name, pat_model_params *mp, char *err, size_t errlen) {
  if (!name) name = "model";
  if (!text || !mp) return fail(err, errlen, name, 0, "no text");
  pat_model_params m;
  pat_model_params_init(&m, 0, 0);
  m.dflt.set = 0;
  int seen_inter[PAT_ALG_COUNT + 1] = {0}, seen_intra[PAT_ALG_COUNT + 1] = {0}, seen_eager = 0;
  int line = 0;
  const char *p = text;
  char buf[1024];
  while (*p) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    line++;
    if (len >= sizeof buf) return fail(err, errlen, name, line, "line too long");
    memcpy(buf, p, len);
    buf[len] = '\0';
    if (len && buf[len - 1] == '\r') buf[--len] = '\0';
    p = nl ? nl + 1 : p + len;
    if (line == 1) {
      if (strncmp(buf, HEADER, strlen(HEADER)) != 0)
        return fail(err, errlen, name, line, "not a libpat model file (the first line must be \"%s%d\")", HEADER,
                    VERSION);
      const char *v = buf + strlen(HEADER);
      char *end;
      long ver = strtol(v, &end, 10);
      while (*end == ' ' || *end == '\t') end++;
      if (end == v || *end) return fail(err, errlen, name, line, "bad version in \"%s\"", buf);
      if (ver != VERSION)
        return fail(err, errlen, name, line, "unsupported model file version %ld (this libpat reads version %d)", ver,
                    VERSION);
      continue;
    }
    char *hash = strchr(buf, '#');
    int is_made = 0;
    {
      char *q = buf;
      while (isspace((unsigned char)*q)) q++;
      is_made = strncmp(q, "made", 4) == 0 && (q[4] == '\0' || isspace((unsigned char)q[4]));
      if (is_made) { /* free text: keep it whole, '#' included */
        q += 4;
        while (isspace((unsigned char)*q)) q++;
        size_t used = strlen(m.made);
        if (used && used + 2 < sizeof m.made) {
          strcat(m.made, "; ");
          used += 2;
        }
        snprintf(m.made + used, sizeof m.made - used, "%s", q);
        continue;
      }
    }
    if (hash) *hash = '\0';
    char *tok[8];
    int nt = 0;
    for (char *save = NULL, *t = strtok_r(buf, " \t\r", &save); t; t = strtok_r(NULL, " \t\r", &save)) {
      if (nt == 8) return fail(err, errlen, name, line, "too many fields");
      tok[nt++] = t;
    }
    if (nt == 0) continue;
    if (strcmp(tok[0], "eager") == 0) {
      double v;
      if (nt != 2 || !number(tok[1], &v))
        return fail(err, errlen, name, line, "expected \"eager <bytes>\" with a number >= 0");
      if (seen_eager++) return fail(err, errlen, name, line, "eager given twice");
      m.eager_bytes = v;
      continue;
    }
    int intra = strcmp(tok[0], "intra") == 0, inter = strcmp(tok[0], "inter") == 0;
    int first = intra || inter;
    if (first && nt < 2) return fail(err, errlen, name, line, "expected \"%s <algorithm|default> <alpha> <beta>\"", tok[0]);
    int idx = name_index(tok[first]);
    if (idx < 0) {
      if (first && nt > 1)
        return fail(err, errlen, name, line, "unknown algorithm \"%s\" (one of: %s)", tok[1], names_list());
      return fail(err, errlen, name, line,
                  "unknown keyword \"%s\" (expected made, eager, intra, inter, or an algorithm: %s)", tok[0],
                  names_list());
    }
    double a, b;
    if (nt != first + 3)
      return fail(err, errlen, name, line, "expected \"%s%s <alpha> <beta>\" (seconds, seconds per byte)",
                  first ? (intra ? "intra " : "inter ") : "", tok[first]);
    if (!number(tok[first + 1], &a))
      return fail(err, errlen, name, line, "alpha \"%s\" is not a finite number >= 0", tok[first + 1]);
    if (!number(tok[first + 2], &b))
      return fail(err, errlen, name, line, "beta \"%s\" is not a finite number >= 0", tok[first + 2]);
    if (a == 0 && b == 0) return fail(err, errlen, name, line, "alpha and beta are both 0");
    pat_link_model *lm = idx == PAT_ALG_COUNT ? &m.dflt : &m.alg[idx];
    if (intra) {
      if (seen_intra[idx]++) return fail(err, errlen, name, line, "intra %s given twice", tok[1]);
      lm->has_intra = 1;
      lm->intra.alpha = a;
      lm->intra.beta = b;
    } else {
      if (seen_inter[idx]++) return fail(err, errlen, name, line, "%s given twice", tok[first]);
      lm->set = 1;
      lm->inter.alpha = a;
      lm->inter.beta = b;
    }
  }
  if (line == 0) return fail(err, errlen, name, 0, "empty file (the first line must be \"%s%d\")", HEADER, VERSION);
  if (!m.dflt.set) return fail(err, errlen, name, 0, "no \"default <alpha> <beta>\" line");
  for (int i = 0; i <= PAT_ALG_COUNT; i++)
    if (seen_intra[i] && !seen_inter[i])
      return fail(err, errlen, name, 0, "\"intra %s\" needs a \"%s <alpha> <beta>\" line too",
                  i == PAT_ALG_COUNT ? "default" : pat_algorithms[i].name,
                  i == PAT_ALG_COUNT ? "default" : pat_algorithms[i].name);
  *mp = m;
  return PAT_OK;
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

char *pat_model_format(const pat_model_params *mp) {
  size_t cap = 1024, len = 0;
  char *buf = malloc(cap);
  if (!buf) return NULL;
  buf[0] = '\0';
  int bad = emit(&buf, &len, &cap,
                 "%s%d\n# alpha in seconds, beta in seconds per byte; a transfer of m bytes costs alpha + beta*m\n",
                 HEADER, VERSION);
  if (mp->made[0]) {
    /* one "made" line per "; "-separated part */
    const char *s = mp->made;
    while (!bad && *s) {
      const char *e = strstr(s, "; ");
      size_t k = e ? (size_t)(e - s) : strlen(s);
      bad = emit(&buf, &len, &cap, "made %.*s\n", (int)k, s);
      s += k + (e ? 2 : 0);
    }
  }
  if (!bad && mp->eager_bytes > 0) bad = emit(&buf, &len, &cap, "eager %.17g\n", mp->eager_bytes);
  for (int i = -1; i < PAT_ALG_COUNT && !bad; i++) {
    const pat_link_model *lm = i < 0 ? &mp->dflt : &mp->alg[i];
    const char *nm = i < 0 ? "default" : pat_algorithms[i].name;
    if (!lm->set) continue;
    bad = emit(&buf, &len, &cap, "%-8s %.17g %.17g\n", nm, lm->inter.alpha, lm->inter.beta);
    if (!bad && lm->has_intra)
      bad = emit(&buf, &len, &cap, "intra %-8s %.17g %.17g\n", nm, lm->intra.alpha, lm->intra.beta);
  }
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
