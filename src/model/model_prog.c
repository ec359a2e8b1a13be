/* Compiled replay programs (see model_prog.h). */
#include "model/model_prog.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/model_impl.h"

typedef struct pxfer {
  int from, to;
  double blocks;
} pxfer;

typedef struct pgroup { /* one port serving several transfers in a step */
  int owner, sends;     /* sends: the owner's send port (else its receive port) */
  size_t lo, hi;        /* entries ge[lo, hi) */
} pgroup;

typedef struct pgent {
  int peer;
  double blocks;
} pgent;

struct pat_prog {
  int P, alg, nsteps;
  int uniform;   /* closed form applies */
  int general;   /* general form compiled */
  unsigned char *mesh; /* nsteps: a transfer of step t queues on two busy ports, so the step's
                          transfers are all in xs[] and served in the replay's global order */
  size_t max_mesh;     /* most transfers of one mesh step */
  size_t transfers;
  double min_blocks; /* smallest message, for the eager check */
  double *step_blocks; /* nsteps: blocks of step t's messages (uniform) */
  int *fg;             /* P: first foreground step, INT_MAX if none */
  size_t *part_off;    /* nsteps+1: ranks with ops in step t are part[part_off[t] ..) */
  int *part;
  size_t *x_off, *x_end; /* simple transfers of step t (all of them in a mesh step): xs[x_off[t], x_end[t]) */
  pxfer *xs;
  size_t *g_off;         /* nsteps+1: groups of step t: gs[g_off[t], g_off[t+1]) */
  pgroup *gs;
  pgent *ge;
};

/* ---- where ranks' ops come from: one build per rank ---- */
typedef struct provider {
  pat_sched one;
  pat_build_args args;
  int alg;
} provider;

static int prov_get(provider *pv, int r, const pat_op **ops, size_t *n) {
  pat_sched_reset(&pv->one, pv->args.P, r);
  pv->one.alg = pv->alg;
  pv->args.self = r;
  int rc = pat_algorithms[pv->alg].build(&pv->one, &pv->args);
  if (!rc) rc = pat_sched_finalize(&pv->one);
  if (rc) return rc;
  *ops = pat_sched_rank_ops(&pv->one, r, n);
  return PAT_OK;
}

/* ---- growable per-step arrays ---- */
typedef struct steps {
  int n, cap;
  double *blocks; /* NAN: not seen */
  size_t *parts, *sends;
} steps;

static int steps_grow(steps *st, int t) {
  if (t < st->n) return PAT_OK;
  if (t >= st->cap) {
    int cap = st->cap ? st->cap : 16;
    while (cap <= t) cap *= 2;
    double *b = realloc(st->blocks, (size_t)cap * sizeof *b);
    if (b) st->blocks = b;
    size_t *p = realloc(st->parts, (size_t)cap * sizeof *p);
    if (p) st->parts = p;
    size_t *s = realloc(st->sends, (size_t)cap * sizeof *s);
    if (s) st->sends = s;
    if (!b || !p || !s) return PAT_ENOMEM;
    st->cap = cap;
  }
  for (int i = st->n; i <= t; i++) {
    st->blocks[i] = NAN;
    st->parts[i] = st->sends[i] = 0;
  }
  st->n = t + 1;
  return PAT_OK;
}

/* (step, rank, sends) of a port that serves several transfers in a step */
typedef struct mport {
  int step, rank, sends;
} mport;

static int mport_cmp(const void *pa, const void *pb) {
  const mport *a = pa, *b = pb;
  if (a->step != b->step) return a->step < b->step ? -1 : 1;
  if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
  return a->sends - b->sends;
}

static int is_multi(const mport *m, size_t n, int step, int rank, int sends) {
  mport key = {step, rank, sends};
  return n && bsearch(&key, m, n, sizeof *m, mport_cmp) != NULL;
}

typedef struct cxfer { /* a transfer on a busy port, before grouping */
  int step, owner, sends, peer;
  double blocks;
} cxfer;

static int cxfer_cmp(const void *pa, const void *pb) {
  const cxfer *a = pa, *b = pb;
  if (a->step != b->step) return a->step < b->step ? -1 : 1;
  if (a->owner != b->owner) return a->owner < b->owner ? -1 : 1;
  if (a->sends != b->sends) return a->sends - b->sends;
  return (a->peer > b->peer) - (a->peer < b->peer);
}

void pat_prog_free(pat_prog *g) {
  if (!g) return;
  free(g->step_blocks);
  free(g->fg);
  free(g->part_off);
  free(g->part);
  free(g->x_off);
  free(g->x_end);
  free(g->mesh);
  free(g->xs);
  free(g->g_off);
  free(g->gs);
  free(g->ge);
  free(g);
}

/* ---- compiling: pass 1 learns the schedule's shape, pass 2 its transfers ---- */

/* What pass 1 learns beyond the program's own fields. */
typedef struct shape {
  steps st;            /* per step: message size, ranks with ops, sends */
  mport *multi;        /* ports that serve several transfers in a step */
  size_t nmulti, capmulti;
  int *ranksteps;      /* number of steps in which each rank has ops */
} shape;

static void shape_free(shape *sh) {
  free(sh->st.blocks);
  free(sh->st.parts);
  free(sh->st.sends);
  free(sh->multi);
  free(sh->ranksteps);
}

/* Rank r's send port (sends = 1) or receive port (0) serves several
 * transfers in step t. */
static int note_multi_port(shape *sh, int t, int r, int sends) {
  if (sh->nmulti == sh->capmulti) {
    size_t cap = sh->capmulti ? 2 * sh->capmulti : 16;
    mport *m = realloc(sh->multi, cap * sizeof *m);
    if (!m) return PAT_ENOMEM;
    sh->multi = m;
    sh->capmulti = cap;
  }
  sh->multi[sh->nmulti++] = (mport){t, r, sends};
  return PAT_OK;
}

/* Pass 1 over rank r's ops [i, j) of one step, its k-th step with ops: the
 * step's message size, r's first foreground step, busy ports, and whatever
 * breaks the uniform form (a step of its own, unequal sizes, several
 * messages on one port). */
static int scan_step(pat_prog *g, shape *sh, int r, const pat_op *ops, size_t i, size_t j, int k) {
  const int t = ops[i].step;
  int ns = 0, nr = 0;
  for (size_t x = i; x < j; x++) {
    const pat_op *o = &ops[x];
    if (!pat_is_send(o->kind)) {
      nr++;
      continue;
    }
    ns++;
    double b = pat_model_op_blocks(o);
    if (b < g->min_blocks) g->min_blocks = b;
    if (isnan(sh->st.blocks[t]))
      sh->st.blocks[t] = b;
    else if (sh->st.blocks[t] != b)
      g->uniform = 0;
    if (g->fg[r] == INT_MAX && o->kind == PAT_OP_SEND && pat_spans_touch_block(g->P, o->nspans, o->span, r))
      g->fg[r] = t;
  }
  if (t != k) g->uniform = 0;
  for (int sends = 0; sends < 2; sends++)
    if ((sends ? ns : nr) > 1) {
      g->uniform = 0;
      if (note_multi_port(sh, t, r, sends)) return PAT_ENOMEM;
    }
  sh->st.parts[t]++;
  sh->st.sends[t] += (size_t)ns;
  g->transfers += (size_t)ns;
  return PAT_OK;
}

/* Pass 1 over rank r's ops, step by step. */
static int scan_rank(pat_prog *g, shape *sh, int r, const pat_op *ops, size_t n) {
  g->fg[r] = INT_MAX;
  int k = 0;
  for (size_t i = 0; i < n; k++) {
    size_t j = i;
    while (j < n && ops[j].step == ops[i].step) j++;
    int rc = steps_grow(&sh->st, ops[i].step);
    if (!rc) rc = scan_step(g, sh, r, ops, i, j, k);
    if (rc) return rc;
    i = j;
  }
  sh->ranksteps[r] = k;
  if (g->fg[r] != 0) g->uniform = 0;
  return PAT_OK;
}

/* Pass 1: the schedule's structure, sizes and whether it is uniform; a
 * uniform program keeps the message size of every step. */
static int scan_schedule(pat_prog *g, shape *sh, provider *pv) {
  for (int r = 0; r < g->P; r++) {
    const pat_op *ops;
    size_t n;
    int rc = prov_get(pv, r, &ops, &n);
    if (!rc) rc = scan_rank(g, sh, r, ops, n);
    if (rc) return rc;
  }
  g->nsteps = sh->st.n;
  for (int r = 0; r < g->P; r++)
    if (sh->ranksteps[r] != g->nsteps) g->uniform = 0;
  if (!g->uniform) return PAT_OK;
  g->step_blocks = malloc((size_t)(g->nsteps ? g->nsteps : 1) * sizeof *g->step_blocks);
  if (!g->step_blocks) return PAT_ENOMEM;
  for (int t = 0; t < g->nsteps; t++) g->step_blocks[t] = sh->st.blocks[t];
  return PAT_OK;
}

/* Transfers on one busy port, before grouping (grows as needed: a schedule
 * whose busy ports are all paired with busy ports, DIRECT's, puts none here). */
typedef struct cxlist {
  cxfer *v;
  size_t n, cap;
} cxlist;

static int cx_push(cxlist *c, cxfer x) {
  if (c->n == c->cap) {
    size_t cap = c->cap ? 2 * c->cap : 64;
    cxfer *v = realloc(c->v, cap * sizeof *v);
    if (!v) return PAT_ENOMEM;
    c->v = v;
    c->cap = cap;
  }
  c->v[c->n++] = x;
  return PAT_OK;
}

/* The general form's arrays, and each step's slices of part[] and xs[] from
 * pass 1's counts; fill[t] is where step t's next participant goes. */
static int alloc_general(pat_prog *g, const shape *sh, size_t **fill) {
  const int T = g->nsteps;
  size_t nparts = 0, nsends = 0;
  for (int t = 0; t < T; t++) {
    nparts += sh->st.parts[t];
    nsends += sh->st.sends[t];
  }
  g->part_off = malloc((size_t)(T + 1) * sizeof(size_t));
  g->part = malloc((nparts ? nparts : 1) * sizeof(int));
  g->x_off = malloc((size_t)(T + 1) * sizeof(size_t));
  g->x_end = malloc((size_t)(T + 1) * sizeof(size_t));
  g->xs = malloc((nsends ? nsends : 1) * sizeof(pxfer));
  g->g_off = calloc((size_t)T + 1, sizeof(size_t));
  g->mesh = calloc((size_t)T + 1, 1);
  *fill = malloc((size_t)(T + 1) * sizeof(size_t));
  if (!g->part_off || !g->part || !g->x_off || !g->x_end || !g->xs || !g->g_off || !g->mesh || !*fill)
    return PAT_ENOMEM;
  g->part_off[0] = g->x_off[0] = 0;
  for (int t = 0; t < T; t++) {
    g->part_off[t + 1] = g->part_off[t] + sh->st.parts[t];
    g->x_off[t + 1] = g->x_off[t] + sh->st.sends[t];
    (*fill)[t] = g->part_off[t];
    g->x_end[t] = g->x_off[t];
  }
  return PAT_OK;
}

/* Pass 2: every rank's participation in each step, and its sends: simple
 * transfers into xs[], those on one busy port into cx for grouping; one on
 * two busy ports goes to xs[] too and makes its step a mesh step. */
static int collect_transfers(pat_prog *g, provider *pv, const shape *sh, size_t *fill, cxlist *cx) {
  for (int r = 0; r < g->P; r++) {
    const pat_op *ops;
    size_t n;
    int rc = prov_get(pv, r, &ops, &n);
    if (rc) return rc;
    for (size_t i = 0; i < n; i++) {
      const pat_op *o = &ops[i];
      int t = o->step;
      if (i == 0 || ops[i - 1].step != t) g->part[fill[t]++] = r;
      if (!pat_is_send(o->kind)) continue;
      int cs = is_multi(sh->multi, sh->nmulti, t, r, 1), cr = is_multi(sh->multi, sh->nmulti, t, o->peer, 0);
      double b = pat_model_op_blocks(o);
      if (cs && cr) g->mesh[t] = 1;
      if (cs == cr) {
        g->xs[g->x_end[t]++] = (pxfer){r, o->peer, b};
      } else if (cx_push(cx, (cxfer){t, cs ? r : o->peer, cs, cs ? o->peer : r, b})) {
        return PAT_ENOMEM;
      }
    }
  }
  return PAT_OK;
}

static int pxfer_cmp(const void *pa, const void *pb) {
  const pxfer *a = pa, *b = pb;
  if (a->from != b->from) return a->from < b->from ? -1 : 1;
  return (a->to > b->to) - (a->to < b->to);
}

/* A mesh step's transfers on one busy port join the others of the step in
 * xs[] (its slice has room for all of them), which is then sorted by
 * (sender, receiver): evaluation only has to sort by readiness, stably.
 * Returns how many are left in cx. */
static size_t move_to_mesh(pat_prog *g, cxfer *cx, size_t ncx) {
  size_t kept = 0;
  for (size_t i = 0; i < ncx; i++) {
    const cxfer *c = &cx[i];
    if (g->mesh[c->step])
      g->xs[g->x_end[c->step]++] = (pxfer){c->sends ? c->owner : c->peer, c->sends ? c->peer : c->owner, c->blocks};
    else
      cx[kept++] = *c;
  }
  for (int t = 0; t < g->nsteps; t++) {
    if (!g->mesh[t]) continue;
    size_t n = g->x_end[t] - g->x_off[t];
    qsort(g->xs + g->x_off[t], n, sizeof *g->xs, pxfer_cmp);
    if (n > g->max_mesh) g->max_mesh = n;
  }
  return kept;
}

/* The transfers on one busy port (outside mesh steps), sorted, as one group
 * per (step, port). */
static int group_busy_ports(pat_prog *g, cxfer *cx, size_t ncx) {
  ncx = move_to_mesh(g, cx, ncx);
  if (ncx == 0) return PAT_OK;
  qsort(cx, ncx, sizeof *cx, cxfer_cmp);
  g->gs = malloc(ncx * sizeof *g->gs); /* at most one group per transfer */
  g->ge = malloc(ncx * sizeof *g->ge);
  if (!g->gs || !g->ge) return PAT_ENOMEM;
  size_t ng = 0;
  for (size_t i = 0; i < ncx; i++) {
    if (i == 0 || cx[i].step != cx[i - 1].step || cx[i].owner != cx[i - 1].owner || cx[i].sends != cx[i - 1].sends) {
      g->gs[ng] = (pgroup){cx[i].owner, cx[i].sends, i, i};
      g->g_off[cx[i].step + 1]++;
      ng++;
    }
    g->ge[i] = (pgent){cx[i].peer, cx[i].blocks};
    g->gs[ng - 1].hi = i + 1;
  }
  for (int t = 0; t < g->nsteps; t++) g->g_off[t + 1] += g->g_off[t];
  return PAT_OK;
}

/* Pass 2: the general form. */
static int compile_general(pat_prog *g, provider *pv, shape *sh) {
  if (sh->nmulti > 1) qsort(sh->multi, sh->nmulti, sizeof *sh->multi, mport_cmp);
  size_t *fill = NULL;
  cxlist cx = {0};
  int rc = alloc_general(g, sh, &fill);
  if (!rc) rc = collect_transfers(g, pv, sh, fill, &cx);
  if (!rc) rc = group_busy_ports(g, cx.v, cx.n);
  g->general = !rc;
  free(fill);
  free(cx.v);
  return rc;
}

static int compile(pat_prog **out, provider *pv, int want_general) {
  const int P = pv->args.P;
  pat_prog *g = calloc(1, sizeof *g);
  if (!g) return PAT_ENOMEM;
  g->P = P;
  g->alg = pv->alg;
  g->uniform = 1;
  g->min_blocks = INFINITY;
  g->fg = malloc((size_t)P * sizeof *g->fg);
  shape sh = {0};
  sh.ranksteps = malloc((size_t)P * sizeof *sh.ranksteps);
  int rc = g->fg && sh.ranksteps ? PAT_OK : PAT_ENOMEM;
  if (!rc) rc = scan_schedule(g, &sh, pv);
  if (!rc && (!g->uniform || want_general)) rc = compile_general(g, pv, &sh);
  shape_free(&sh);
  if (rc) {
    pat_prog_free(g);
    return rc;
  }
  *out = g;
  return PAT_OK;
}

int pat_prog_compile(pat_prog **out, int alg, int P, int root, int general) {
  if (alg < 0 || alg >= PAT_ALG_COUNT || !pat_algorithms[alg].build || P < 1) return PAT_EINVAL;
  provider pv;
  memset(&pv, 0, sizeof pv);
  pv.alg = alg;
  pv.args.P = P;
  pv.args.root = root;
  pat_sched_init(&pv.one, P, 0);
  int rc = compile(out, &pv, general);
  pat_sched_free(&pv.one);
  return rc;
}

int pat_prog_is_uniform(const pat_prog *g) { return g->uniform; }

/* ---- evaluation ---- */

typedef struct gtmp {
  double ready, cost, alpha, work;
  int peer;
} gtmp;

static int gtmp_cmp(const void *pa, const void *pb) {
  const gtmp *a = pa, *b = pb;
  double ra = a->ready + a->alpha, rb = b->ready + b->alpha;
  if (ra != rb) return ra < rb ? -1 : 1;
  return (a->peer > b->peer) - (a->peer < b->peer);
}

static void finish(const pat_prog *g, const double *a, const double *fin, pat_model_result *out) {
  double sum = 0, emax = 0, fmax = 0, amax = 0;
  for (int i = 0; i < g->P; i++) {
    double e = fin[i] - a[i];
    sum += e;
    if (e > emax) emax = e;
    if (fin[i] > fmax) fmax = fin[i];
    if (a[i] > amax) amax = a[i];
    if (out->f) out->f[i] = fin[i];
    if (out->e) out->e[i] = e;
    if (out->fg_step) out->fg_step[i] = g->fg[i] == INT_MAX ? -1 : g->fg[i];
  }
  out->ebar = sum / g->P;
  out->emax = emax;
  out->r = fmax;
  out->omega = amax;
  out->transfers = g->transfers;
  out->engine = PAT_ENGINE_FAST;
}

/* The uniform form: every rank leaves at f = (((max a) + c_0) + c_1) + ...,
 * or at its own arrival if later (see model_prog.h). */
static void eval_closed_form(const pat_prog *g, const double *a, pat_hockney h, double block_bytes, double *fin) {
  const int P = g->P;
  double v = 0;
  for (int i = 0; i < P; i++)
    if (a[i] > v) v = a[i];
  for (int t = 0; t < g->nsteps; t++) v = v + pat_model_cost(h, block_bytes, g->step_blocks[t]);
  for (int i = 0; i < P; i++) fin[i] = v > a[i] ? v : a[i];
}

/* The general form's sweep over the steps. */
typedef struct sweep {
  const pat_prog *g;
  const double *a; /* arrivals */
  double bg;       /* background start */
  double block_bytes;
  pat_replay R;    /* only for the per-pair parameters */
  double *cur;     /* when each rank left its last step so far (-inf: none yet) */
  double *entry;   /* when each rank entered the current step */
  double *smax;    /* when each rank's ops of the current step end */
  gtmp *tmp;       /* one port group's transfers */
  double *gend;    /* ... and when each ends */
  double *vfin;    /* processor sharing: a heap of virtual finish times */
  size_t *vid;     /* ... and the transfer of each */
} sweep;

/* The ranks with ops in step t enter it: after their previous step, and
 * not before their arrival (foreground) or min(bg, arrival) (background). */
static void sweep_enter(sweep *sw, int t) {
  const pat_prog *g = sw->g;
  for (size_t k = g->part_off[t]; k < g->part_off[t + 1]; k++) {
    int r = g->part[k];
    double floor = t >= g->fg[r] ? sw->a[r] : (sw->bg < sw->a[r] ? sw->bg : sw->a[r]);
    sw->entry[r] = sw->cur[r] > floor ? sw->cur[r] : floor;
    sw->smax[r] = -INFINITY;
  }
}

/* Step t's transfers on free ports: each starts when both ends have entered. */
static void sweep_simple(sweep *sw, int t) {
  const pat_prog *g = sw->g;
  for (size_t k = g->x_off[t]; k < g->x_end[t]; k++) {
    const pxfer *x = &g->xs[k];
    double cost = pat_model_cost(pat_replay_pair(&sw->R, x->from, x->to), sw->block_bytes, x->blocks);
    double ready = sw->entry[x->from] > sw->entry[x->to] ? sw->entry[x->from] : sw->entry[x->to];
    double end = ready + cost;
    if (end > sw->smax[x->from]) sw->smax[x->from] = end;
    if (end > sw->smax[x->to]) sw->smax[x->to] = end;
  }
}

/* Processor sharing of one port among n transfers: transfer i (sorted by
 * release) starts moving bytes at rel[i] = ready + alpha and needs work[i]
 * seconds of the port alone; while k of them move, each gets 1/k of the
 * port (their other ends serve nothing else in this step, so the port is
 * their only bottleneck: max-min fair sharing reduces to this).  Virtual
 * time V grows at 1/k; a transfer that entered at V0 ends when V = V0 +
 * work.  One that never shared the port ends at exactly ready + cost, as
 * in the replay.  Writes end[i].  O(n log n). */
static void share_port(sweep *sw, const gtmp *v, size_t n, double *end) {
  double *hf = sw->vfin, t = -INFINITY, V = 0;
  size_t *hid = sw->vid, nh = 0, next = 0;
  unsigned char *shared = (unsigned char *)(sw->vid + n); /* room after vid (see eval_general) */
  memset(shared, 0, n);
  while (next < n || nh > 0) {
    double trel = next < n ? v[next].ready + v[next].alpha : INFINITY;
    double tfin = nh > 0 ? t + (hf[0] - V) * (double)nh : INFINITY;
    if (trel <= tfin) { /* a release: the heap gains one */
      if (nh > 0) V += (trel - t) / (double)nh;
      t = trel;
      if (nh == 1) shared[hid[0]] = 1;
      if (nh >= 1) shared[next] = 1;
      double key = V + v[next].work;
      size_t i = nh++;
      while (i > 0 && hf[(i - 1) / 2] > key) {
        hf[i] = hf[(i - 1) / 2];
        hid[i] = hid[(i - 1) / 2];
        i = (i - 1) / 2;
      }
      hf[i] = key;
      hid[i] = next++;
      continue;
    }
    /* the first to finish leaves */
    V = hf[0];
    t = tfin;
    size_t id = hid[0];
    end[id] = shared[id] ? t : v[id].ready + v[id].cost;
    double lk = hf[--nh];
    size_t lid = hid[nh], i = 0;
    for (;;) {
      size_t c = 2 * i + 1;
      if (c >= nh) break;
      if (c + 1 < nh && hf[c + 1] < hf[c]) c++;
      if (!(hf[c] < lk)) break;
      hf[i] = hf[c];
      hid[i] = hid[c];
      i = c;
    }
    if (nh > 0) {
      hf[i] = lk;
      hid[i] = lid;
    }
  }
}

/* Step t's transfers on busy ports: each port shares itself among its group. */
static void sweep_groups(sweep *sw, int t) {
  const pat_prog *g = sw->g;
  const double *entry = sw->entry;
  double *smax = sw->smax;
  gtmp *tmp = sw->tmp;
  for (size_t k = g->g_off[t]; k < g->g_off[t + 1]; k++) {
    const pgroup *gr = &g->gs[k];
    size_t n = gr->hi - gr->lo;
    int o = gr->owner;
    for (size_t i = 0; i < n; i++) {
      const pgent *e = &g->ge[gr->lo + i];
      int from = gr->sends ? o : e->peer, to = gr->sends ? e->peer : o;
      pat_hockney h = pat_replay_pair(&sw->R, from, to);
      tmp[i].ready = entry[o] > entry[e->peer] ? entry[o] : entry[e->peer];
      tmp[i].cost = pat_model_cost(h, sw->block_bytes, e->blocks);
      tmp[i].alpha = h.alpha;
      tmp[i].work = h.beta * (sw->block_bytes * e->blocks);
      tmp[i].peer = e->peer;
    }
    qsort(tmp, n, sizeof *tmp, gtmp_cmp);
    double *end = sw->gend;
    share_port(sw, tmp, n, end);
    for (size_t i = 0; i < n; i++) {
      if (end[i] > smax[o]) smax[o] = end[i];
      if (end[i] > smax[tmp[i].peer]) smax[tmp[i].peer] = end[i];
    }
  }
}

/* The most transfers one port group holds. */
static size_t largest_group(const pat_prog *g) {
  size_t maxg = 0;
  for (int t = 0; t < g->nsteps; t++)
    for (size_t k = g->g_off[t]; k < g->g_off[t + 1]; k++)
      if (g->gs[k].hi - g->gs[k].lo > maxg) maxg = g->gs[k].hi - g->gs[k].lo;
  return maxg;
}

/* The general form: one sweep over the steps.  Returns PAT_OK or PAT_ENOMEM. */
static int eval_general(const pat_prog *g, const double *a, const pat_model_params *mp, const pat_link_model *lm,
                        double block_bytes, double *fin) {
  const int P = g->P;
  sweep sw;
  memset(&sw, 0, sizeof sw);
  sw.g = g;
  sw.a = a;
  sw.bg = mp->bg_start;
  sw.block_bytes = block_bytes;
  sw.R.mp = mp;
  sw.R.lm = lm;
  sw.cur = malloc((size_t)P * sizeof *sw.cur);
  sw.entry = malloc((size_t)P * sizeof *sw.entry);
  sw.smax = malloc((size_t)P * sizeof *sw.smax);
  size_t maxg = largest_group(g);
  sw.tmp = malloc((maxg ? maxg : 1) * sizeof *sw.tmp);
  int rc = sw.cur && sw.entry && sw.smax && sw.tmp ? PAT_OK : PAT_ENOMEM;
  if (!rc) {
    size_t m = maxg ? maxg : 1;
    sw.gend = malloc(m * sizeof *sw.gend);
    sw.vfin = malloc(m * sizeof *sw.vfin);
    sw.vid = malloc(m * sizeof *sw.vid + m); /* + one flag byte per transfer (share_port) */
    if (!sw.gend || !sw.vfin || !sw.vid) rc = PAT_ENOMEM;
  }
  if (!rc) {
    for (int i = 0; i < P; i++) sw.cur[i] = -INFINITY;
    for (int t = 0; t < g->nsteps; t++) {
      sweep_enter(&sw, t);
      sweep_simple(&sw, t);
      sweep_groups(&sw, t);
      for (size_t k = g->part_off[t]; k < g->part_off[t + 1]; k++) sw.cur[g->part[k]] = sw.smax[g->part[k]];
    }
    for (int i = 0; i < P; i++) fin[i] = sw.cur[i] > a[i] ? sw.cur[i] : a[i];
  }
  free(sw.cur);
  free(sw.entry);
  free(sw.smax);
  free(sw.tmp);
  free(sw.gend);
  free(sw.vfin);
  free(sw.vid);
  return rc;
}

int pat_prog_eval(const pat_prog *g, const double *a, const pat_model_params *mp, double block_bytes,
                  pat_model_result *out) {
  if (mp->eager_bytes > 0 && block_bytes * g->min_blocks < mp->eager_bytes) return PAT_MODEL_FALLBACK;
  const pat_link_model *lm = pat_model_link(mp, g->alg);
  int varied = mp->node && lm->has_intra;
  int nonneg = lm->inter.alpha >= 0 && lm->inter.beta >= 0 && block_bytes >= 0;
  double *fin = malloc((size_t)g->P * sizeof *fin);
  if (!fin) return PAT_ENOMEM;
  int rc = PAT_OK;
  if (g->uniform && !varied && nonneg)
    eval_closed_form(g, a, lm->inter, block_bytes, fin);
  else if (!g->general || g->max_mesh)
    rc = PAT_MODEL_FALLBACK; /* a mesh step needs the replay's max-min sharing of many ports */
  else
    rc = eval_general(g, a, mp, lm, block_bytes, fin);
  if (rc == PAT_OK) finish(g, a, fin, out);
  free(fin);
  return rc;
}
