/* Placement of the background thread (PAT_BIND), with hwloc. */
#ifndef PAT_BIND_H
#define PAT_BIND_H

#include "runtime/settings.h"

/* Bind the calling thread as the settings say (call it from the thread).
 * A placement that cannot be made is reported (world rank 0) and skipped. */
int pat_bind_background_thread(const pat_settings *s, int world_rank);

#endif
