/*
 * MPI_Finalize without PAT_Finalize (a program that forgets it, or leaves
 * through MPI_Finalize on an error path; issue 25): libpat's background
 * thread would go on calling MPI after MPI is gone.  MPI's own hook for this
 * is an attribute on MPI_COMM_SELF, whose delete callback MPI runs at the
 * very start of MPI_Finalize, while MPI still works and on every rank (both
 * are collective): there libpat says so once and shuts down as PAT_Finalize
 * would, so nothing is sent after MPI is gone, and a later exit() or return
 * from main finds no thread running.
 */
#ifndef PAT_FINALIZE_HOOK_H
#define PAT_FINALIZE_HOOK_H

/* At PAT_Init: put the attribute on MPI_COMM_SELF (once per process).
 * shut_down: what PAT_Finalize does once its checks passed (runtime.c),
 * collective; run there if libpat is still initialised. */
int pat_finalize_hook_install(void (*shut_down)(void));

#endif
