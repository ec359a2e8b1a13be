/*
 * The fluid network of the replay (model_fluid.c): ports of capacity 1
 * (one second of port time per second), a send port and a receive port per
 * rank and, where nodes share links, per node (model_fluid.c numbers them).  A port shares itself equally among the flows through it, and a
 * flow moves at the smaller of its two shares.
 *
 * Why equal shares and not max-min fairness: max-min (water filling over
 * the component of ports a change touches) was tried first; it propagates
 * every change through chains of shared ports, which made a replay at
 * P = 64 tens of times as costly as the one-port engine's.  With
 * equal shares a change only moves the flows of the two ports it touches:
 * O(their flows * log n) per event.  The two agree whenever every flow of a
 * port is bottlenecked there or equally elsewhere: a port shared by flows
 * whose other ends are free (a gather, a fan-out), and DIRECT's balanced
 * mesh (every port carries the step's W flows).  Where they differ, equal
 * shares leave some capacity unused and predict later exits.
 *
 * A flow needs `work` seconds of port time (beta * bytes).  The completion
 * heap is indexed: an active flow has one entry, moved in place when its
 * rate changes.  (It once kept every old entry and skipped the stale ones:
 * with many flows per port each event filed a new entry per flow, and
 * popping the stale ones took most of a selection's time.)
 *
 * A flow that has run at rate 1 since it was added finishes at exactly the
 * `finish_solo` it was given (ready + alpha + work, computed by the caller
 * as ready + pat_model_cost): the compiled closed forms agree bit for bit.
 *
 * Pure C, no MPI.
 */
#ifndef PAT_MODEL_NET_H
#define PAT_MODEL_NET_H

#include <stddef.h>

#include "model/replay_space.h"

typedef struct pat_net_flow {
  int sport, rport; /* the send port and the receive port it flows through */
  int active, solo;
  double rem, tlast, rate; /* remaining work at tlast; current rate */
  double finish_solo;
  double due;          /* its completion, as filed in the heap */
  size_t pos_s, pos_r; /* index in its ports' lists */
  size_t pos_h;        /* index in the heap (PAT_NET_NOWHERE: not in it) */
} pat_net_flow;

#define PAT_NET_NOWHERE ((size_t)-1)

typedef struct pat_net {
  int nports;
  size_t nflows;
  pat_net_flow *fl;
  size_t **port;      /* nports lists of active flow ids (the replay numbers them: model_fluid.c) */
  size_t *pn, *pcap;  /* their lengths and capacities */
  double *share;      /* share[n] = 1.0 / n, n = 1..nflows: a flow's rate, looked up (a division per flow and event
                         was the replay's hottest instruction) */
  size_t *heap;       /* active flows by (due, id): an indexed binary heap */
  size_t nheap;
} pat_net;

/* The space's slots the network uses (model_fluid.c uses the ones before). */
#define PAT_NET_SLOT_FLOWS 12
#define PAT_NET_SLOT_HEAP 13
#define PAT_NET_SLOT_PORT_LENGTHS 14
#define PAT_NET_SLOT_SHARES 15

/* For flows with ids [0, nflows) through ports [0, nports), each port a
 * sender's or a receiver's, never both; its memory is sp's (nothing to
 * free).  Returns 0 or PAT_ENOMEM. */
int pat_net_init(pat_net *N, int nports, size_t nflows, pat_replay_space *sp);

/* Flow id starts moving work seconds of port time through send port sport
 * and receive port rport at `now`. */
int pat_net_add(pat_net *N, size_t id, int sport, int rport, double now, double work, double finish_solo);

/* The earliest completion: its time and flow (returns 0 if none). */
int pat_net_next(pat_net *N, double *t, size_t *id);

/* Flow id is done at `now` (the time pat_net_next gave). */
int pat_net_remove(pat_net *N, size_t id, double now);

#endif
