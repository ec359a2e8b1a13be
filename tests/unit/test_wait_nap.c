/* The foreground's nap while it waits for messages (src/runtime/wait_nap.h), hand
 * computed: 1/16 of the model's time of the rank's
 * smallest message, capped at 50 us, none under 10 us or when a faster
 * intra-node link may carry that message. */
#include <stdint.h>

#include "algorithms/algorithms.h"
#include "model/model.h"
#include "runtime/wait_nap.h"
#include "testutil.h"

static double smallest(int alg, int P, int self, const int64_t *arrival, int64_t block_bytes) {
  pat_sched s;
  pat_build_args a = {P, self, arrival, 10000000, 0, 0, block_bytes, NULL, NULL, NULL};
  if (pat_build(alg, &s, &a) != PAT_OK) return -1;
  double b = pat_wait_smallest_blocks(&s, self);
  pat_sched_free(&s);
  return b;
}

int main(void) {
  /* RING: one block a step */
  CHECK(smallest(PAT_ALG_RING, 8, 3, NULL, 1 << 19) == 1.0, "ring's smallest message is one block");
  /* DIRECT: whole blocks */
  double direct = smallest(PAT_ALG_DIRECT, 4, 1, NULL, 32000);
  CHECK(direct == 1.0, "direct's smallest message is one block, got %g", direct);
  /* RELAY under imbalance at P = 8 with 512 KiB blocks: pieces of 1/35 block */
  int64_t arrival[8] = {0, 90000000, 10000000, 80000000, 20000000, 70000000, 30000000, 60000000};
  double relay = smallest(PAT_ALG_RELAY, 8, 2, arrival, 1 << 19);
  CHECK(relay > 0.02856 && relay < 0.02858, "relay's smallest message is 1/35 block, got %g", relay);

  pat_model_params mp;
  /* 32000 B at 1e-8 s/B, no latency: 320 us, a nap of 20 us */
  pat_model_params_init(&mp, 0.0, 1e-8);
  CHECK(pat_wait_nap_model_ns(1.0, PAT_ALG_DIRECT, 32000, &mp) == 20000, "1/16 of 320 us is 20 us, got %lld",
        (long long)pat_wait_nap_model_ns(1.0, PAT_ALG_DIRECT, 32000, &mp));
  CHECK(pat_wait_nap_model_ns(0.0, PAT_ALG_DIRECT, 32000, &mp) == 0, "no data message: no nap");
  /* the emulated cluster: 1/7 of 512 KiB at 500 Mbit/s plus 130 us is about 1.33 ms: capped at 50 us */
  pat_model_params_init(&mp, 130e-6, 1.6e-8);
  CHECK(pat_wait_nap_model_ns(1.0 / 7, PAT_ALG_RELAY, 1 << 19, &mp) == 50000, "capped at 50 us");
  /* 1/35 of it: 14980 B, 370 us, a nap of 23.1 us */
  CHECK(pat_wait_nap_model_ns(relay, PAT_ALG_RELAY, 1 << 19, &mp) / 100 == 231, "1/16 of 370 us, got %lld ns",
        (long long)pat_wait_nap_model_ns(relay, PAT_ALG_RELAY, 1 << 19, &mp));
  /* shared memory: 75 KB at 0.1 ns/B plus 1 us is about 8.5 us: 0.5 us, under 10 us: none */
  pat_model_params_init(&mp, 1e-6, 1e-10);
  CHECK(pat_wait_nap_model_ns(relay, PAT_ALG_RELAY, 1 << 19, &mp) == 0, "shared memory: no nap");
  /* a network link, but a much faster intra-node one: the nap follows the faster */
  pat_model_params_init(&mp, 0.0, 1e-8);
  mp.dflt.has_intra = 1;
  mp.dflt.intra.alpha = 0;
  mp.dflt.intra.beta = 2e-9; /* 32000 B: 64 us, a nap of 4 us: none */
  CHECK(pat_wait_nap_model_ns(1.0, PAT_ALG_DIRECT, 32000, &mp) == 0, "the intra-node link sets the nap");
  mp.dflt.intra.beta = 5e-9; /* 160 us: 10 us */
  CHECK(pat_wait_nap_model_ns(1.0, PAT_ALG_DIRECT, 32000, &mp) == 10000, "the intra-node link sets the nap: %lld",
        (long long)pat_wait_nap_model_ns(1.0, PAT_ALG_DIRECT, 32000, &mp));
  /* no model, no nap */
  CHECK(pat_wait_nap_model_ns(1.0, PAT_ALG_DIRECT, 32000, NULL) == 0, "no model: no nap");
  return TEST_RESULT();
}
