#include "runtime/wait_nap.h"

#include <stdatomic.h>

#include "runtime/process.h"

#define NAP_MAX_NS 50000.0   /* the length measured on the emulated cluster */
#define NAP_MIN_NS 10000.0   /* shorter naps cost a system call for little CPU */
#define NAP_SHARE 16.0       /* of the smallest message's time */

double pat_wait_smallest_blocks(const pat_sched *s, int self) {
  double smallest = 0;
  for (size_t i = 0; i < s->nops; i++) {
    const pat_op *op = &s->ops[i];
    if (op->rank != self || op->nspans == 0) continue;
    double blocks = pat_model_op_blocks(op);
    if (smallest == 0 || blocks < smallest) smallest = blocks;
  }
  return smallest;
}

int64_t pat_wait_nap_model_ns(double smallest_blocks, int alg, double block_bytes, const pat_model_params *mp) {
  if (!mp || smallest_blocks <= 0 || block_bytes <= 0) return 0;
  /* the fastest link this rank may use: a nap must not outlast a message on it */
  const pat_link_model *link = pat_model_link(mp, alg);
  pat_hockney fastest = link->inter;
  if (link->has_intra && link->intra.beta < fastest.beta) fastest = link->intra;
  double nap = 1e9 * pat_model_cost(fastest, block_bytes, smallest_blocks) / NAP_SHARE;
  if (nap < NAP_MIN_NS) return 0;
  return (int64_t)(nap > NAP_MAX_NS ? NAP_MAX_NS : nap);
}

int pat_node_oversubscribed(void) {
  static atomic_int cached = -1; /* both threads would compute the same answer */
  int v = atomic_load_explicit(&cached, memory_order_relaxed);
  if (v >= 0) return v;
  v = pat_proc.node_cpus > 0 && pat_proc.node_ranks > pat_proc.node_cpus;
  atomic_store_explicit(&cached, v, memory_order_relaxed);
  return v;
}

int64_t pat_wait_nap_plain_ns(void) {
  int setting = pat_proc.settings.wait_nap_us;
  if (setting >= 0) return 1000LL * setting;
  return pat_node_oversubscribed() ? (int64_t)NAP_MAX_NS : 0;
}

int64_t pat_wait_nap_ns(double smallest_blocks, int alg, double block_bytes, const pat_model_params *mp) {
  int setting = pat_proc.settings.wait_nap_us;
  if (setting >= 0) return smallest_blocks > 0 ? 1000LL * setting : 0;
  int64_t nap = pat_wait_nap_model_ns(smallest_blocks, alg, block_bytes, mp);
  /* More ranks than CPUs: a rank spinning in MPI_Waitsome holds a CPU that a
   * peer needs to send what it waits for, however fast the link (the model
   * gives shared memory no nap at all).  16 ranks on 2 cores of the emulated
   * cluster spent 10 s of CPU each there in a 100 s launch (issue 52). */
  if (smallest_blocks > 0 && nap < (int64_t)NAP_MAX_NS && pat_node_oversubscribed()) nap = (int64_t)NAP_MAX_NS;
  return nap;
}
