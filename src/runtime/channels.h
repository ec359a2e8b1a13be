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
 * A communicator's blocking calls take two channels, its non-blocking
 * calls one (comm.h, nbc_queue.h).  Every communicator libpat makes is made
 * by pat_private_dup, here: at PAT_Init the channels, the world's copy
 * (runtime.c) and the persistent calls' signals' (persist.c); later only a
 * persistent call's copy at its set-up (persist.c, collective like it) and,
 * where a communicator has no route, its blocking calls' two at their first
 * call (comm.c).  The node map's communicators are split from a copy at
 * PAT_Init (comm.c).
 *
 * Locks: channels_lock, a leaf.
 */
#ifndef PAT_CHANNELS_H
#define PAT_CHANNELS_H

#include <mpi.h>

/* A private duplicate of comm, its errors returned, made by MPI_Comm_create_group over
 * comm's group: collective over comm like a dup, without the application's info hints
 * (such as mpi_assert_allow_overtaking, which would break the order libpat relies on)
 * and without its attributes.  Not MPI_Comm_dup: Open MPI 4.1 agrees on a dup's context
 * id with a non-blocking all-reduce on the parent, which registers libnbc's progress
 * hook until the parent is freed, and every MPI progress loop of the program then calls
 * it (a visible part of a 1 B call's profile on one node; MPI_Comm_create_group
 * agrees by point-to-point messages).  Returns 0 or an MPI error. */
int pat_private_dup(MPI_Comm comm, MPI_Comm *out);
#define PAT_CREATE_GROUP_TAG 1347 /* any valid tag: no two of libpat's are in flight on one comm */

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
