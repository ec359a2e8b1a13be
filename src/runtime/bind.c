/*
 * Placement of the background thread (PAT_BIND), with hwloc:
 *   none (default)  leave the thread where the OS and the application put it
 *   pu:N            the PU with hwloc logical index N
 *   last            the last PU of the process's cpuset (often a spare one)
 *   sibling         another PU (hyperthread) of the core the process runs on
 * A placement that cannot be made is reported once on stderr and skipped.
 */
#include "runtime/bind.h"

#include <hwloc.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int choose_pu(hwloc_topology_t topo, const pat_settings *s, hwloc_bitmap_t target) {
  hwloc_bitmap_t mine = hwloc_bitmap_alloc();
  int ok = 0;
  if (hwloc_get_cpubind(topo, mine, HWLOC_CPUBIND_PROCESS) != 0)
    hwloc_bitmap_copy(mine, hwloc_topology_get_allowed_cpuset(topo));
  if (s->bind == PAT_BIND_PU) {
    hwloc_obj_t pu = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, (unsigned)s->bind_pu);
    if (pu) {
      hwloc_bitmap_copy(target, pu->cpuset);
      ok = 1;
    }
  } else if (s->bind == PAT_BIND_LAST) {
    int last = hwloc_bitmap_last(mine);
    if (last >= 0) {
      hwloc_bitmap_only(target, (unsigned)last);
      ok = 1;
    }
  } else if (s->bind == PAT_BIND_SIBLING) {
    int first = hwloc_bitmap_first(mine);
    hwloc_obj_t pu = first >= 0 ? hwloc_get_pu_obj_by_os_index(topo, (unsigned)first) : NULL;
    hwloc_obj_t core = pu ? hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, pu) : NULL;
    if (core && hwloc_bitmap_weight(core->cpuset) > 1) {
      hwloc_bitmap_copy(target, core->cpuset);
      hwloc_bitmap_clr(target, (unsigned)first);
      hwloc_bitmap_singlify(target);
      ok = 1;
    }
  }
  hwloc_bitmap_free(mine);
  return ok;
}

int pat_bind_background_thread(const pat_settings *s, int world_rank) {
  if (s->bind == PAT_BIND_NONE) return MPI_SUCCESS;
  char spec[32];
  if (s->bind == PAT_BIND_PU)
    snprintf(spec, sizeof spec, "pu:%d", s->bind_pu);
  else
    snprintf(spec, sizeof spec, "%s", s->bind == PAT_BIND_LAST ? "last" : "sibling");
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) != 0) return MPI_ERR_OTHER;
  int rc = MPI_SUCCESS;
  if (hwloc_topology_load(topo) == 0) {
    hwloc_bitmap_t target = hwloc_bitmap_alloc();
    if (!choose_pu(topo, s, target)) {
      if (world_rank == 0)
        fprintf(stderr, "libpat: PAT_BIND=%s cannot be applied here; the background thread stays unbound\n", spec);
      rc = MPI_ERR_ARG;
    } else if (hwloc_set_cpubind(topo, target, HWLOC_CPUBIND_THREAD) != 0) {
      if (world_rank == 0) fprintf(stderr, "libpat: PAT_BIND=%s: binding failed\n", spec);
      rc = MPI_ERR_OTHER;
    } else if (s->verbose > 0) {
      char *text;
      hwloc_bitmap_asprintf(&text, target);
      fprintf(stderr, "libpat: rank %d background thread bound to cpuset %s\n", world_rank, text);
      free(text);
    }
    hwloc_bitmap_free(target);
  }
  hwloc_topology_destroy(topo);
  return rc;
}
