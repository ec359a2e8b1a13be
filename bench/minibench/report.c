/* Human-readable summary and CSV rows (columns documented in bench/README.md). */
#include <math.h>
#include <string.h>

#include "mb.h"

static const char *const columns =
    "timestamp,label,host,P,N_requested,N,count_per_rank,block_bytes,alg,status,iters,warmup,flat_iters,"
    "compute,base_ms,max_delay_ms,max_delay_tau,seed,tau_us,ebar_us,ebar_sd_us,ebar_ci95_us,ebar_min_us,"
    "ebar_max_us,ebar_median_us,ebar_flat_us,r_us,r_flat_us,omega_us,omega_max_us,omega_over_tau,absorption_us,elb_us,"
    "ebar_over_elb,compute_late_us,compute_late_max_us,errors,failed_calls,chosen,alg_disagree,clock_offset_max_us,clock_rtt_min_us,thread_level,"
    "calls,pred_calls,pred_err_mean_us,pred_err_max_us,xwait_mean_us,xwait_max_us,bg_cpu_s,message,"
    "counts,compute_by_size";

const char *mb_csv_header(void) { return columns; }

static const char *thread_level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE: return "single";
    case MPI_THREAD_FUNNELED: return "funneled";
    case MPI_THREAD_SERIALIZED: return "serialized";
    default: return "multiple";
  }
}

void mb_chosen_string(const mb_result *r, char *out, size_t len) {
  size_t n = 0;
  out[0] = '\0';
  for (int i = 0; i < PAT_AlgCount() && i < MB_MAX_ALGS; i++)
    if (r->chosen[i] > 0 && n < len)
      n += (size_t)snprintf(out + n, len - n, "%s%s=%lld", n ? ";" : "", PAT_AlgName(i), r->chosen[i]);
  if (r->chosen_other > 0 && n < len) snprintf(out + n, len - n, "%sother=%lld", n ? ";" : "", r->chosen_other);
}

static double ratio(double a, double b) { return b > 0 ? a / b : NAN; }

void mb_print_header(const mb_opts *o, const mb_setup *s) {
  printf("pat-minibench  %s  host %s  P=%d\n", s->timestamp, s->host, s->P);
  if (o->allreduce)
    printf("  all-reduce (PAT_Allreduce, MPI_FLOAT, MPI_SUM) of N = %lld floats, PAT_ALLREDUCE=%s (shares of %lld"
           " floats, %lld bytes)", s->n, o->algs[0], s->count, s->block_bytes);
  else
    printf("  N = %lld floats (%lld per rank, %lld-byte blocks)", s->n, s->count, s->block_bytes);
  if (s->n != o->n_req)
    printf("  [requested %lld: not divisible by P=%d, the last %lld dropped]", o->n_req, s->P, o->n_req - s->n);
  if (s->counts) {
    printf("\n  counts %s: unequal blocks of %lld .. %lld floats (mean %lld), PAT_Allgatherv;", s->counts_name,
           s->count_min, s->count_max, s->count);
    for (int r = 0; r < s->P && r < 16; r++) printf(" %d", s->counts[r]);
    if (s->P > 16) printf(" ...");
    if (o->compute_by_size) printf("\n  compute by size: rank r's delay x count_r / %lld", s->count_max);
  }
  printf("\n  tau = %.2f us (%s)\n", 1e6 * s->tau,
         o->tau_us > 0   ? "given by --tau-us"
         : o->allreduce ? "min one-way time of one share, N/P floats, ranks 0<->1"
                         : "min one-way time of one block, ranks 0<->1");
  printf("  max delay %.3f ms = %.2f tau; compute %s, %.1f ms + delay/2 per half; seed %llu%s\n",
         1e3 * s->max_delay_s, ratio(s->max_delay_s, s->tau), o->busy ? "busy" : "sleep", o->base_ms, o->seed,
         o->uninstrumented ? "; uninstrumented (arrivals redrawn every call, predicted from history only)" : "");
  printf("  iterations per algorithm: %d warm-up, %d flat (for r'), %d measured; order %s%s\n", o->warmup,
         mb_flat_iters(o, s), o->iters, o->blocked ? "blocked" : "interleaved",
         o->also_chosen ? ", then each algorithm auto ran that the list lacks" : "");
  printf("  common clock: max |offset to rank 0| %.2f us, min RTT %.2f us; MPI thread level %s\n",
         1e6 * s->clock.max_offset, 1e6 * s->clock.min_rtt, thread_level_name(s->thread_level));
  fflush(stdout);
}

/* one right-aligned number, or '-' when there is none */
static void cell(int width, double v, int prec) {
  if (isfinite(v)) printf(" %*.*f", width, prec, v);
  else printf(" %*s", width, "-");
}

void mb_print_summary(const mb_opts *o, const mb_setup *s, const mb_result *res, int n) {
  printf("\n%-9s %-6s %12s %9s %11s %11s %7s %11s %11s %7s %7s  %s\n", "alg", "status", "ebar[us]", "+-95%CI",
         "r[us]", "omega[us]", "w/tau", "A[us]", "elb[us]", "e/elb", "errors", "chosen");
  for (int i = 0; i < n; i++) {
    const mb_result *r = &res[i];
    char chosen[256];
    mb_chosen_string(r, chosen, sizeof chosen);
    printf("%-9s %-6s", r->alg, r->status);
    cell(12, 1e6 * r->ebar, 1);
    cell(9, 1e6 * r->ebar_ci, 1);
    cell(11, 1e6 * r->r, 1);
    cell(11, 1e6 * r->omega, 1);
    cell(7, ratio(r->omega, s->tau), 2);
    cell(11, 1e6 * r->absorption, 1);
    cell(11, 1e6 * r->elb, 1);
    cell(7, ratio(r->ebar, r->elb), 2);
    printf(" %7lld  %s\n", r->errors, chosen);
  }
  for (int i = 0; i < n; i++) {
    const mb_result *r = &res[i];
    if (!strcmp(r->status, "failed"))
      printf("%s: FAILED after %d measured iterations: %s\n", r->alg, r->iters, r->message);
    if (r->errors > 0)
      printf("%s: WRONG RESULTS: %lld elements differ from the expected values\n", r->alg, r->errors);
    if (isfinite(r->late) && (r->late > 1e-3 || r->late > 0.1 * r->ebar))
      printf("%s: WARNING: the compute phase ended %.0f us late on average (max %.0f us): the CPUs are\n"
             "  oversubscribed or busy with other work; times are inflated and noisy\n",
             r->alg, 1e6 * r->late, 1e6 * r->late_max);
    if (r->disagree > 0)
      printf("%s: ranks reported different algorithms (PAT_LastAlg) in %d iterations\n", r->alg, r->disagree);
    if (r->pred_calls > 0 || r->xwait_sum > 0 || r->bg_cpu > 0) {
      printf("%s: libpat stats over the run (all ranks):", r->alg);
      if (r->pred_calls > 0)
        printf(" predicted calls %lld/%lld, |error| mean %.1f us max %.1f us;", r->pred_calls, r->calls,
               1e6 * r->pred_err_sum / (double)r->pred_calls, 1e6 * r->pred_err_max);
      if (r->xwait_sum > 0)
        printf(" exchange wait mean %.1f us max %.1f us;", 1e6 * r->xwait_sum / (double)r->calls,
               1e6 * r->xwait_max);
      if (r->bg_cpu > 0) printf(" background CPU %.3f s", r->bg_cpu);
      printf("\n");
    }
  }
  printf("(ebar: mean elapsed time f_i - a_i; r: max f - min a; omega: max a - min a; A = r' - r + omega,\n"
         " r' from a flat run; elb: lower bound of docs/design.md section 1 from the measured arrivals and tau)\n");
  if (o->allreduce)
    printf("(all-reduce: elb = mean_i max(0, max_j!=i a_j + P tau - a_i): rank j's vector, P shares of tau each,"
           " leaves its one send port after a_j%s; docs/design.md section 1)\n",
           s->nodes > 1 && s->nodes < s->P ? ", j on another node than i (shared memory free)" : "");
  else if (s->nodes > 1 && s->nodes < s->P && !s->counts)
    printf("(%d nodes: tau between two of them, elb the two-level bound: a node's link takes in every other"
           " node's block, shared memory free)\n", s->nodes);
  if (o->persistent)
    printf("(persistent: each algorithm's call set up once, PAT_Start at the arrival%s; elb the persistent"
           " bound mean_i max(0, max_j!=i (a_j + tau_j) - a_i): blocks may move before their receiver starts)\n",
           o->overlap ? ", compute, MPI_Wait" : ", MPI_Wait");
  if (s->counts)
    printf("(counts %s: PAT_Allgatherv on blocks of %lld .. %lld floats; elb with block j taking"
           " tau * count_j / %lld)\n", s->counts_name, s->count_min, s->count_max, s->count);
  fflush(stdout);
}

/* a number in microseconds, or an empty field */
static void us(FILE *f, double seconds) {
  if (isfinite(seconds)) fprintf(f, ",%.3f", 1e6 * seconds);
  else fputc(',', f);
}

static void num(FILE *f, double v) {
  if (isfinite(v)) fprintf(f, ",%.6g", v);
  else fputc(',', f);
}

int mb_write_csv(const mb_opts *o, const mb_setup *s, const mb_result *res, int n) {
  FILE *f = fopen(o->csv, "a+");
  if (!f) {
    fprintf(stderr, "pat-minibench: cannot open %s for appending\n", o->csv);
    return -1;
  }
  fseek(f, 0, SEEK_END);
  if (ftell(f) == 0) {
    fprintf(f, "%s\n", columns);
  } else {
    char first[2048] = "";
    rewind(f);
    if (!fgets(first, sizeof first, f)) first[0] = '\0';
    first[strcspn(first, "\r\n")] = '\0';
    if (strcmp(first, columns) != 0) {
      fprintf(stderr, "pat-minibench: %s has other columns than this version writes; not appending\n", o->csv);
      fclose(f);
      return -1;
    }
    fseek(f, 0, SEEK_END);
  }
  for (int i = 0; i < n; i++) {
    const mb_result *r = &res[i];
    char chosen[256];
    mb_chosen_string(r, chosen, sizeof chosen);
    fprintf(f, "%s,%s,%s,%d,%lld,%lld,%lld,%lld,%s,%s,%d,%d,%d,%s", s->timestamp, o->label, s->host, s->P, o->n_req,
            s->n, s->count, s->block_bytes, r->alg, r->status, r->iters, o->warmup, r->flat_iters,
            o->busy ? "busy" : "sleep");
    num(f, o->base_ms);
    num(f, 1e3 * s->max_delay_s);
    num(f, ratio(s->max_delay_s, s->tau));
    fprintf(f, ",%llu", o->seed);
    us(f, s->tau);
    us(f, r->ebar);
    us(f, r->ebar_sd);
    us(f, r->ebar_ci);
    us(f, r->ebar_min);
    us(f, r->ebar_max);
    us(f, r->ebar_median);
    us(f, r->ebar_flat);
    us(f, r->r);
    us(f, r->r_flat);
    us(f, r->omega);
    us(f, r->omega_max);
    num(f, ratio(r->omega, s->tau));
    us(f, r->absorption);
    us(f, r->elb);
    num(f, ratio(r->ebar, r->elb));
    us(f, r->late);
    us(f, r->late_max);
    fprintf(f, ",%lld,%lld,%s,%d", r->errors, r->failed_calls, chosen, r->disagree);
    us(f, s->clock.max_offset);
    us(f, s->clock.min_rtt);
    fprintf(f, ",%s,%lld,%lld", thread_level_name(s->thread_level), r->calls, r->pred_calls);
    us(f, r->pred_calls > 0 ? r->pred_err_sum / (double)r->pred_calls : NAN);
    us(f, r->pred_calls > 0 ? r->pred_err_max : NAN);
    us(f, r->calls > 0 ? r->xwait_sum / (double)r->calls : NAN);
    us(f, r->calls > 0 ? r->xwait_max : NAN);
    num(f, r->bg_cpu);
    fprintf(f, ",\"%s\",%s,%d\n", r->message, s->counts_name, o->compute_by_size);
  }
  fclose(f);
  return 0;
}
