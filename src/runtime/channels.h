/*
 * Channels: private duplicates of MPI_COMM_WORLD that libpat makes at
 * PAT_Init (collective over the world, where the application can have
 * nothing outstanding on any communicator of libpat's), so that no
 * communicator is ever made later behind the application's back.  A
 * context of libpat's on an application communicator takes one channel:
 * every message sent to this process for that context arrives on it.  A
 * channel is this process's alone to lend: the other ranks of a context
 * learn which one it took from an all-gather of the channel numbers on the
 * application's communicator, posted in the application's own call (so in
 * the collective order MPI requires), and send to rank world[r] of channel
 * channel[r] (exec/buffers.h: pat_route).
 *
 * Locks: channels_lock, a leaf.
 */
#ifndef PAT_CHANNELS_H
#define PAT_CHANNELS_H

#include <mpi.h>

/* PAT_Init: count channels (PAT_CHANNELS; at most that many contexts on
 * one process hold one at once: a context holds its channel until the
 * application freed its communicator and its calls are done), duplicates
 * of world (collective over world).  Returns an MPI error code. */
int pat_channels_init(MPI_Comm world, int count);
/* How many there are. */
int pat_channels_count(void);
/* Shutdown (collective): every channel freed. */
void pat_channels_finalize(void);

/* A free channel's number, taken; -1 when every one is lent. */
int pat_channel_take(void);
/* Give channel c back (no message for its context can still arrive). */
void pat_channel_give(int c);
/* Channel c's communicator (MPI_COMM_NULL for a number out of range). */
MPI_Comm pat_channel_comm(int c);

#endif
