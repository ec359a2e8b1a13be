/*
 * The platform signature a model file records (model_file.h, "# platform"):
 * the MPI library (the first line of MPI_Get_library_version) and the
 * operating system and machine (uname).  pat-calibrate writes it into its
 * times, pat-fit carries it into the model file, pat_info compares it with
 * the platform it runs on.  A model calibrated under another MPI or on
 * another kind of machine ranks the algorithms as that platform did.  It
 * leaves out the host names and the job's layout: the same cluster's model
 * serves jobs of any size on any of its nodes.
 */
#ifndef PAT_TOOLS_PLATFORM_H
#define PAT_TOOLS_PLATFORM_H

#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

/* The signature into out (MPI must be initialized): "Open MPI v4.1.4; Linux x86_64". */
static inline void pat_platform_signature(char *out, size_t size) {
  char lib[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(lib, &len);
  lib[len < MPI_MAX_LIBRARY_VERSION_STRING ? len : MPI_MAX_LIBRARY_VERSION_STRING - 1] = '\0';
  size_t n = strcspn(lib, "\r\n,"); /* Open MPI goes on with its repository and date after a comma */
  while (n && (lib[n - 1] == ' ' || lib[n - 1] == '\t')) n--;
  struct utsname u;
  if (uname(&u) != 0) {
    snprintf(u.sysname, sizeof u.sysname, "unknown");
    snprintf(u.machine, sizeof u.machine, "unknown");
  }
  snprintf(out, size, "%.*s; %s %s", (int)(n < 100 ? n : 100), lib, u.sysname, u.machine);
}

#endif
