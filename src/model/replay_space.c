/* Memory a replay keeps for the next one (see replay_space.h). */
#include "model/replay_space.h"

#include <stdlib.h>
#include <string.h>

void *pat_space_get(pat_replay_space *sp, int slot, size_t bytes) {
  if (bytes == 0) bytes = 1;
  if (sp->cap[slot] < bytes) {
    size_t cap = sp->cap[slot] + sp->cap[slot] / 2 > bytes ? sp->cap[slot] + sp->cap[slot] / 2 : bytes;
    free(sp->buf[slot]);
    sp->buf[slot] = malloc(cap);
    sp->cap[slot] = sp->buf[slot] ? cap : 0;
  }
  return sp->buf[slot];
}

void *pat_space_zeroed(pat_replay_space *sp, int slot, size_t bytes) {
  void *p = pat_space_get(sp, slot, bytes);
  if (p) memset(p, 0, bytes);
  return p;
}

void *pat_space_grow(pat_replay_space *sp, int slot, size_t bytes) {
  if (sp->cap[slot] >= bytes) return sp->buf[slot];
  void *p = realloc(sp->buf[slot], bytes);
  if (!p) return NULL;
  sp->buf[slot] = p;
  sp->cap[slot] = bytes;
  return p;
}

int pat_space_ports(pat_replay_space *sp, size_t nports) {
  if (nports <= sp->nports) return 0;
  size_t **port = realloc(sp->port, nports * sizeof *port);
  if (!port) return -1;
  sp->port = port;
  size_t *pcap = realloc(sp->pcap, nports * sizeof *pcap);
  if (!pcap) return -1;
  sp->pcap = pcap;
  for (size_t p = sp->nports; p < nports; p++) {
    port[p] = NULL;
    pcap[p] = 0;
  }
  sp->nports = nports;
  return 0;
}

void pat_replay_space_free(pat_replay_space *sp) {
  for (int i = 0; i < PAT_REPLAY_SLOTS; i++) free(sp->buf[i]);
  for (size_t p = 0; p < sp->nports; p++) free(sp->port[p]);
  free(sp->port);
  free(sp->pcap);
  memset(sp, 0, sizeof *sp);
}
