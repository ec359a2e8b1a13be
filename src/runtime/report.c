/*
 * Per-call-site statistics and the report printed at PAT_Finalize; see
 * report.h.
 *
 * A communicator is named across ranks without any communication: by the
 * world ranks of its group (a hash, the lowest world rank of its rank 0, a
 * compact list for printing) and its name.  Statistics aggregate per
 * communicator shape (group and name) and call site (count, size, type), not
 * per communicator or per call: a program that creates communicators or
 * changes sizes without end keeps a bounded report (issue 25).  Beyond
 * MAX_SHAPES shapes or MAX_ROWS rows, the rest is summed into one row of
 * its own, printed as such.
 */
#include "runtime/report.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pat/shape.h"
#include "runtime/process.h"
#include "runtime/stats.h"

#define DESC PAT_REPORT_DESC
#define MAX_SHAPES 256 /* communicator shapes kept apart; the others share one entry */
#define MAX_ROWS 1024  /* finished rows kept apart; the others share one row */
#define OTHERS "(others)"

typedef struct rep_comm {
  uint64_t group_hash;
  int occurrence, P, leader;
  char name[DESC];  /* MPI_Comm_get_name */
  char group[DESC]; /* world ranks, compact */
} rep_comm;

/* A finished site, and what a rank sends to rank 0 for each (plain bytes:
 * the library assumes one data representation). */
typedef struct rep_record {
  uint64_t group_hash;
  int32_t occurrence, P, leader, count;
  int64_t bytes, calls, pred_calls, exchanged, algs[PAT_ALG_COUNT];
  double e_sum, e_max, err_sum, err_max;
  /* the site's online refinement (agreed: the same on every rank): measured
   * and predicted ē summed over the calls it learned from, per algorithm */
  int64_t learned[PAT_ALG_COUNT];
  double pred_sum[PAT_ALG_COUNT], meas_sum[PAT_ALG_COUNT];
  char comm_name[DESC], group[DESC], type_desc[DESC];
  char guard[160]; /* the site's guardrail (agreed): state, alternative's mean cost vs the static choice's */
} rep_record;

int pat_report_on;
static MPI_Comm report_world = MPI_COMM_NULL;
static pthread_mutex_t rep_lock = PTHREAD_MUTEX_INITIALIZER;
static rep_comm *comms;
static int ncomms, cap_comms;
static rep_record *rows; /* finished sites */
static int nrows_done, cap_rows;

/* Room for one more element in a growing array of n used out of *cap. */
static int make_room(void **array, int n, int *cap, size_t elem) {
  if (n < *cap) return 0;
  int more_cap = *cap ? 2 * *cap : 16;
  void *more = realloc(*array, (size_t)more_cap * elem);
  if (!more) return -1;
  *array = more;
  *cap = more_cap;
  return 0;
}

static void clear_tables(void) {
  free(comms);
  free(rows);
  comms = NULL;
  rows = NULL;
  ncomms = cap_comms = nrows_done = cap_rows = 0;
}

int pat_report_init(MPI_Comm world, int on) {
  clear_tables();
  report_world = world;
  int rc = MPI_Bcast(&on, 1, MPI_INT, 0, world);
  pat_report_on = rc == MPI_SUCCESS && on > 0;
  return rc;
}
/* "0-7", "0,2,4,6", "1,3,5,...(16)" */
static void describe_group(const int *w, int P, char *out, size_t size) {
  int contiguous = 1;
  for (int i = 1; i < P; i++)
    if (w[i] != w[0] + i) contiguous = 0;
  if (P == 1)
    snprintf(out, size, "%d", w[0]);
  else if (contiguous)
    snprintf(out, size, "%d-%d", w[0], w[P - 1]);
  else {
    size_t len = 0;
    out[0] = '\0';
    for (int i = 0; i < P; i++) {
      char item[24];
      snprintf(item, sizeof item, "%s%d", i ? "," : "", w[i]);
      if (len + strlen(item) + 12 >= size) {
        snprintf(out + len, size - len, ",...(%d)", P);
        return;
      }
      memcpy(out + len, item, strlen(item) + 1);
      len += strlen(item);
    }
  }
}

static int new_comm(const pat_comm_base *b) {
  int *w = malloc((size_t)b->P * 2 * sizeof *w);
  if (!w) return -1;
  MPI_Group g, wg;
  MPI_Comm_group(b->user, &g);
  MPI_Comm_group(report_world, &wg);
  for (int i = 0; i < b->P; i++) w[b->P + i] = i;
  MPI_Group_translate_ranks(g, b->P, w + b->P, wg, w);
  MPI_Group_free(&g);
  MPI_Group_free(&wg);
  rep_comm rc = {.group_hash = 1469598103934665603ull, .P = b->P, .leader = w[0]};
  for (int i = 0; i < b->P; i++) rc.group_hash = (rc.group_hash ^ (uint64_t)(uint32_t)w[i]) * 1099511628211ull;
  describe_group(w, b->P, rc.group, sizeof rc.group);
  free(w);
  char name[MPI_MAX_OBJECT_NAME];
  int len = 0;
  name[0] = '\0';
  MPI_Comm_get_name(b->user, name, &len);
  snprintf(rc.name, sizeof rc.name, "%s", name[0] ? name : "(unnamed)");
  /* one entry per shape: communicators made again and again share it */
  for (int i = 0; i < ncomms; i++)
    if (comms[i].group_hash == rc.group_hash && comms[i].P == rc.P && strcmp(comms[i].name, rc.name) == 0) return i;
  if (ncomms >= MAX_SHAPES - 1) { /* the last entry stands for every further shape */
    if (ncomms == MAX_SHAPES - 1) {
      rc = (rep_comm){.group_hash = 0, .P = 0, .leader = -1};
      snprintf(rc.name, sizeof rc.name, OTHERS);
      snprintf(rc.group, sizeof rc.group, "-");
      if (make_room((void **)&comms, ncomms, &cap_comms, sizeof *comms)) return -1;
      comms[ncomms++] = rc;
    }
    return MAX_SHAPES - 1;
  }
  if (make_room((void **)&comms, ncomms, &cap_comms, sizeof *comms)) return -1;
  comms[ncomms] = rc;
  return ncomms++;
}

static const char *combiner_name(int combiner) {
  switch (combiner) {
    case MPI_COMBINER_DUP: return "dup";
    case MPI_COMBINER_CONTIGUOUS: return "contiguous";
    case MPI_COMBINER_VECTOR: return "vector";
    case MPI_COMBINER_HVECTOR: return "hvector";
    case MPI_COMBINER_INDEXED: return "indexed";
    case MPI_COMBINER_HINDEXED: return "hindexed";
    case MPI_COMBINER_INDEXED_BLOCK: return "indexed_block";
    case MPI_COMBINER_STRUCT: return "struct";
    case MPI_COMBINER_SUBARRAY: return "subarray";
    case MPI_COMBINER_DARRAY: return "darray";
    case MPI_COMBINER_RESIZED: return "resized";
    default: return "derived";
  }
}

/* Predefined types by name; derived ones by how they were made and their
 * size (MPI implementations name some derived types internally). */
static void describe_type(MPI_Datatype type, char *out, size_t size) {
  char name[MPI_MAX_OBJECT_NAME];
  int len = 0, ni, na, nd, combiner, tsize = 0;
  name[0] = '\0';
  MPI_Type_get_envelope(type, &ni, &na, &nd, &combiner);
  if (combiner == MPI_COMBINER_NAMED) MPI_Type_get_name(type, name, &len);
  MPI_Type_size(type, &tsize);
  if (name[0])
    snprintf(out, size, "%s", name);
  else
    snprintf(out, size, "%s(%dB)", combiner_name(combiner), tsize);
}

static int same_site(const rep_record *a, const rep_record *b);

/* Add b's counts and sums to a (the same site of the same shape). */
static void add_record(rep_record *a, const rep_record *b) {
  a->calls += b->calls;
  a->pred_calls += b->pred_calls;
  a->exchanged += b->exchanged;
  for (int k = 0; k < PAT_ALG_COUNT; k++) {
    a->algs[k] += b->algs[k];
    a->learned[k] += b->learned[k];
    a->pred_sum[k] += b->pred_sum[k];
    a->meas_sum[k] += b->meas_sum[k];
  }
  a->e_sum += b->e_sum;
  a->err_sum += b->err_sum;
  if (b->e_max > a->e_max) a->e_max = b->e_max;
  if (b->err_max > a->err_max) a->err_max = b->err_max;
}

/* A finished site goes into the row of its shape and site (made if new);
 * when the table is full, into the one row of the others. */
static void keep_row(rep_record *r) {
  for (int k = 0; k < nrows_done; k++)
    if (same_site(&rows[k], r)) {
      add_record(&rows[k], r);
      return;
    }
  if (nrows_done >= MAX_ROWS) {
    r->group_hash = 0;
    r->P = 0;
    r->leader = -1;
    r->count = -1;
    r->bytes = -1;
    snprintf(r->comm_name, DESC, OTHERS);
    snprintf(r->group, DESC, "-");
    snprintf(r->type_desc, DESC, "-");
    for (int k = 0; k < nrows_done; k++)
      if (same_site(&rows[k], r)) {
        add_record(&rows[k], r);
        return;
      }
  }
  if (make_room((void **)&rows, nrows_done, &cap_rows, sizeof *rows)) return;
  rows[nrows_done++] = *r;
}

/* The site's statistics become (part of) a finished row, and its slot is cleared. */
static void finish_site(pat_comm_report *rep, const pat_sites *sites, pat_engine *engine, int i) {
  pat_site_report *sr = &rep->site[i];
  if (sr->calls == 0 || rep->id <= 0) return;
  if (engine) pat_engine_settle(engine);
  const pat_engine_site *es = engine ? pat_engine_site_state(engine, i) : NULL; /* none: no call under auto */
  const rep_comm *c = &comms[rep->id - 1];
  rep_record row, *r = &row;
  memset(r, 0, sizeof *r);
  r->group_hash = c->group_hash;
  r->occurrence = c->occurrence;
  r->P = c->P;
  r->leader = c->leader;
  r->count = sites->site[i].count;
  r->bytes = sites->site[i].bytes;
  r->calls = sr->calls;
  r->pred_calls = sr->pred_calls;
  r->exchanged = sr->exchanged;
  const pat_refine *rf = es ? &es->refine : NULL;
  for (int a = 0; a < PAT_ALG_COUNT && rf; a++) {
    r->learned[a] = rf->samples[a];
    r->pred_sum[a] = rf->pred_sum[a];
    r->meas_sum[a] = rf->meas_sum[a];
  }
  memcpy(r->algs, sr->algs, sizeof r->algs);
  r->e_sum = sr->e_sum;
  r->e_max = sr->e_max;
  r->err_sum = sr->err_sum;
  r->err_max = sr->err_max;
  memcpy(r->comm_name, c->name, DESC);
  memcpy(r->group, c->group, DESC);
  memcpy(r->type_desc, sr->type_desc, DESC);
  if (es) pat_guard_describe(&es->guard, r->guard, (int)sizeof r->guard);
  else snprintf(r->guard, sizeof r->guard, "-");
  if (es && es->promotions) { /* the static choice the site ended with, promoted from the exchange mode */
    size_t used = strlen(r->guard);
    snprintf(r->guard + used, sizeof r->guard - used, "; static choice %s (%d promotions)",
             pat_algorithms[es->static_alg].name, es->promotions);
  }
  if (es && es->model_dropped) { /* measurement contradicted the model file's choice at this site */
    size_t used = strlen(r->guard);
    snprintf(r->guard + used, sizeof r->guard - used, "; model dropped at call %lld", es->model_dropped_at);
  }
  memset(sr, 0, sizeof *sr);
  keep_row(r);
}

/* The site's slot is the communicator's (its lock, held by the caller):
 * only the shared table of communicators needs rep_lock, once. */
void pat_report_record(pat_comm_report *rep, const pat_comm_base *b, int site, MPI_Datatype type,
                       int64_t elapsed_ns, const pat_call_stats *call) {
  if (rep->id == 0) {
    pthread_mutex_lock(&rep_lock);
    int id = new_comm(b);
    rep->id = id >= 0 ? id + 1 : -1;
    pthread_mutex_unlock(&rep_lock);
  }
  pat_site_report *sr = &rep->site[site];
  if (sr->calls == 0) describe_type(type, sr->type_desc, sizeof sr->type_desc);
  double e = 1e-9 * (double)elapsed_ns;
  sr->calls++;
  sr->exchanged += call->exchanged;
  if (call->alg >= 0 && call->alg < PAT_ALG_COUNT) sr->algs[call->alg]++;
  sr->e_sum += e;
  if (e > sr->e_max) sr->e_max = e;
  if (call->predicted) {
    sr->pred_calls++;
    sr->err_sum += call->pred_err_s;
    if (call->pred_err_s > sr->err_max) sr->err_max = call->pred_err_s;
  }
}

void pat_report_site_done(pat_comm_report *rep, const pat_sites *sites, pat_engine *engine, int site) {
  if (!pat_report_on) return;
  pthread_mutex_lock(&rep_lock);
  finish_site(rep, sites, engine, site);
  pthread_mutex_unlock(&rep_lock);
}


/* ---- rank 0: merge and print ---- */

static int same_site(const rep_record *a, const rep_record *b) {
  return a->group_hash == b->group_hash && a->occurrence == b->occurrence && a->P == b->P && a->count == b->count &&
         a->bytes == b->bytes && strcmp(a->type_desc, b->type_desc) == 0 && strcmp(a->comm_name, b->comm_name) == 0;
}

static int cmp_key(const void *pa, const void *pb) {
  const rep_record *a = pa, *b = pb;
  if (a->group_hash != b->group_hash) return a->group_hash < b->group_hash ? -1 : 1;
  if (a->occurrence != b->occurrence) return a->occurrence - b->occurrence;
  if (a->P != b->P) return a->P - b->P;
  if (a->count != b->count) return a->count - b->count;
  if (a->bytes != b->bytes) return a->bytes < b->bytes ? -1 : 1;
  int t = strcmp(a->type_desc, b->type_desc);
  return t ? t : strcmp(a->comm_name, b->comm_name); /* MPI_COMM_WORLD apart from its duplicates */
}

typedef struct rep_row {
  rep_record sum; /* counts and sums over the ranks of the site */
  int ranks;
  int64_t max_calls;
} rep_row;

static int cmp_row(const void *pa, const void *pb) {
  const rep_row *a = pa, *b = pb;
  if (a->max_calls != b->max_calls) return a->max_calls > b->max_calls ? -1 : 1;
  if (a->sum.leader != b->sum.leader) return a->sum.leader - b->sum.leader;
  return a->sum.count - b->sum.count;
}

void pat_report_fmt_time(double s, char *out, size_t size) {
  if (s < 1e-3)
    snprintf(out, size, "%.1f us", s * 1e6);
  else if (s < 1.0)
    snprintf(out, size, "%.2f ms", s * 1e3);
  else
    snprintf(out, size, "%.3f s", s);
}

/* "ard 21.3/24.0 ms, native 40.1/38.2 ms": per algorithm the site learned
 * from, the mean predicted and measured ē (under the actual arrivals). */
static void describe_model(const rep_record *s, char *out, size_t size) {
  size_t len = 0;
  out[0] = '\0';
  for (int a = 0; a < PAT_ALG_COUNT && len < size; a++) {
    if (s->learned[a] <= 0) continue;
    char p[24], m[24];
    pat_report_fmt_time(s->pred_sum[a] / (double)s->learned[a], p, sizeof p);
    pat_report_fmt_time(s->meas_sum[a] / (double)s->learned[a], m, sizeof m);
    len += (size_t)snprintf(out + len, size - len, "%s%s %s/%s", len ? ", " : "", pat_algorithms[a].name, p, m);
  }
  if (!out[0]) snprintf(out, size, "-");
}

static void print_row(const rep_row *row) {
  const rep_record *s = &row->sum;
  int n = row->ranks;
  char what[64], algs[128], me[24], mx[24], err[24], pred[24], exch[24], model[256];
  /* an all-gatherv's unequal blocks: their mean count (pat/shape.h) */
  snprintf(what, sizeof what, "%s%d x %s", pat_key_is_shape(s->bytes) ? "v~" : "", s->count, s->type_desc);
  size_t len = 0;
  algs[0] = '\0';
  for (int a = 0; a < PAT_ALG_COUNT; a++)
    if (s->algs[a] > 0 && len < sizeof algs) {
      double per_rank = (double)s->algs[a] / n;
      len += (size_t)snprintf(algs + len, sizeof algs - len, "%s%s %.0f", len ? ", " : "", pat_algorithms[a].name,
                              per_rank);
    }
  pat_report_fmt_time(s->calls ? s->e_sum / (double)s->calls : 0.0, me, sizeof me);
  pat_report_fmt_time(s->e_max, mx, sizeof mx);
  snprintf(pred, sizeof pred, "%.0f%%", s->calls ? 100.0 * (double)s->pred_calls / (double)s->calls : 0.0);
  snprintf(exch, sizeof exch, "%.0f%%", s->calls ? 100.0 * (double)s->exchanged / (double)s->calls : 0.0);
  if (s->pred_calls)
    pat_report_fmt_time(s->err_sum / (double)s->pred_calls, err, sizeof err);
  else
    snprintf(err, sizeof err, "-");
  describe_model(s, model, sizeof model);
  char ranks[32];
  if (n == s->P)
    snprintf(ranks, sizeof ranks, "%d", s->P);
  else
    snprintf(ranks, sizeof ranks, "%d(%d)", s->P, n); /* only n of its ranks used this count and type */
  fprintf(stderr, "libpat report: %-24s %-12s %5s %-24s %8lld %-28s %10s %10s %9s %10s %10s %s | guard: %s\n",
          s->comm_name, s->group, ranks, what, (long long)row->max_calls, algs, me, mx, exch, pred, err, model,
          pat_proc.alg == PAT_ALG_AUTO ? s->guard : "-");
}

static void print_rows(rep_row *rows, int nrows, int world_size) {
  qsort(rows, (size_t)nrows, sizeof *rows, cmp_row);
  const char *setting = pat_proc.alg == PAT_ALG_AUTO ? "auto" : pat_algorithms[pat_proc.alg].name;
  fprintf(stderr, "libpat report: %d call site%s, %d process%s, PAT_ALG=%s\n", nrows, nrows == 1 ? "" : "s",
          world_size, world_size == 1 ? "" : "es", setting);
  if (nrows == 0) {
    fprintf(stderr, "libpat report: no all-gather calls\n");
    return;
  }
  fprintf(stderr, "libpat report: %-24s %-12s %5s %-24s %8s %-28s %10s %10s %9s %10s %10s %s | guard\n", "communicator",
          "world ranks", "P", "count x type", "calls", "algorithms (calls per rank)", "mean e", "max e", "exchanged",
          "predicted", "mean |err|", "model: predicted/measured mean e");
  for (int r = 0; r < nrows; r++) print_row(&rows[r]);
  fprintf(stderr,
          "libpat report: e = time in the call (exit - arrival), mean and max over ranks and calls; exchanged = calls "
          "that exchanged arrivals first; predicted = calls whose arrival was predicted before it happened, |err| = "
          "|predicted - actual arrival|; model = per algorithm, the cost model's mean e for the calls' actual "
          "arrivals against the measured one (the calls after an exchange); guard = the site's guardrail (static, "
          "exploring, kept, backing off; docs/guardrail.md) and the measured mean cost above the wait for the last "
          "arrival of its exchange-mode calls against the static choice's\n");
}

static void merge_and_print(rep_record *rec, int n, int world_size) {
  qsort(rec, (size_t)n, sizeof *rec, cmp_key);
  rep_row *rows = calloc((size_t)(n ? n : 1), sizeof *rows);
  if (!rows) return;
  int nrows = 0;
  for (int i = 0; i < n; i++) {
    rep_row *row = nrows > 0 && same_site(&rows[nrows - 1].sum, &rec[i]) ? &rows[nrows - 1] : NULL;
    if (!row) {
      row = &rows[nrows++];
      row->sum = rec[i];
      row->ranks = 1;
      row->max_calls = rec[i].calls;
      continue;
    }
    rep_record *s = &row->sum;
    row->ranks++;
    if (rec[i].calls > row->max_calls) row->max_calls = rec[i].calls;
    s->calls += rec[i].calls;
    s->pred_calls += rec[i].pred_calls;
    s->exchanged += rec[i].exchanged;
    for (int a = 0; a < PAT_ALG_COUNT; a++) { /* agreed values: every rank's are the same, keep one */
      s->learned[a] = rec[i].learned[a];
      s->pred_sum[a] = rec[i].pred_sum[a];
      s->meas_sum[a] = rec[i].meas_sum[a];
    }
    for (int a = 0; a < PAT_ALG_COUNT; a++) s->algs[a] += rec[i].algs[a];
    s->e_sum += rec[i].e_sum;
    s->err_sum += rec[i].err_sum;
    if (rec[i].e_max > s->e_max) s->e_max = rec[i].e_max;
    if (rec[i].err_max > s->err_max) s->err_max = rec[i].err_max;
  }
  print_rows(rows, nrows, world_size);
  free(rows);
}

void pat_report_finalize(void) {
  if (!pat_report_on) return;
  pat_report_on = 0;
  int size, rank;
  MPI_Comm_size(report_world, &size);
  MPI_Comm_rank(report_world, &rank);
  pthread_mutex_lock(&rep_lock);
  int bytes = nrows_done * (int)sizeof(rep_record), *counts = NULL, *displs = NULL, total = 0;
  rep_record *mine = rows;
  rows = NULL;
  clear_tables();
  pthread_mutex_unlock(&rep_lock);

  rep_record *all = NULL;
  if (rank == 0) {
    counts = calloc((size_t)size, sizeof *counts);
    displs = calloc((size_t)size, sizeof *displs);
  }
  MPI_Gather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, 0, report_world);
  if (rank == 0) {
    for (int r = 0; r < size; r++) {
      displs[r] = total;
      total += counts[r];
    }
    all = malloc((size_t)(total ? total : 1));
  }
  MPI_Gatherv(mine, bytes, MPI_BYTE, all, counts, displs, MPI_BYTE, 0, report_world);
  if (rank == 0 && all) {
    merge_and_print(all, total / (int)sizeof(rep_record), size);
    fflush(stderr);
  }
  free(all);
  free(counts);
  free(displs);
  free(mine);
}
