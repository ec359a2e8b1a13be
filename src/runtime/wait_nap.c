#include "runtime/wait_nap.h"

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

int64_t pat_wait_nap_ns(double smallest_blocks, int alg, double block_bytes, const pat_model_params *mp) {
  int setting = pat_proc.settings.wait_nap_us;
  if (setting < 0) return pat_wait_nap_model_ns(smallest_blocks, alg, block_bytes, mp);
  return smallest_blocks > 0 ? 1000LL * setting : 0;
}
