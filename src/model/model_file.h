/*
 * The model file: one per machine, made by pat-calibrate + pat-fit, read by
 * the runtime (PAT_MODEL), pat-model and pat_info.  Pure C, no MPI.
 *
 *   # libpat model v2
 *   made pat-fit from calibration.csv: P=8, metric ebar
 *   eager 65536
 *   default 5.0e-05 8.0e-09
 *   ring    4.8e-05 8.1e-09
 *   intra ring 2.0e-06 1.0e-10
 *   link    1.2e-05 7.9e-09
 *   gamma   1.5e-10
 *   P 8
 *   time native 1 2.1e-05
 *   time native 4 2.2e-05
 *   time ring 1 3.0e-05
 *   time ring 4 3.1e-05
 *
 * - The first line is "# libpat model v<version>".  This libpat reads
 *   versions 1 and 2 and writes 2.  A newer version is refused with a
 *   message saying to use the libpat that wrote it or to recalibrate.
 * - '#' starts a comment; blank lines are ignored; fields are separated by
 *   blanks.
 * - "made <text>": how the file was made (free text, '#' included; several
 *   lines are joined with "; ").
 * - "eager <bytes>": messages of fewer bytes are sent eagerly (0: never); at
 *   most once, default 0.
 * - "default <alpha> <beta>": required; the Hockney parameters of every
 *   algorithm without its own line.
 * - "<algorithm> <alpha> <beta>": parameters fitted for one algorithm (a name
 *   of the portfolio, algorithms/registry.c).
 * - "intra <algorithm|default> <alpha> <beta>": optional pair for transfers
 *   between ranks of the same node; needs the plain line of the same name.
 *   "inter <name> ..." is a synonym of the plain line.
 * - "link <alpha> <beta>" (optional, at most once): the point-to-point
 *   cost of one pair of ranks alone on the network, measured by a ping-pong
 *   between two ranks on different nodes (pat-calibrate, fitted by pat-fit):
 *   the rate a transfer gets when the ports around it are idle.  The fitted
 *   lines above are whole all-gathers' times, where transfers share ports,
 *   so they may differ from it.  Without it, link_set is 0.
 * - "gamma <seconds per byte>" (optional, at most once, any version): what
 *   a reduction's combination costs per byte, MPI_Reduce_local of doubles
 *   with MPI_SUM (pat-calibrate, fitted by pat-fit); finite, >= 0.  Without
 *   it gamma_set is 0 and gamma PAT_MODEL_GAMMA_DEFAULT
 *   (pat_model_gamma_note says so).
 * - alpha in seconds, beta in seconds per byte; finite, >= 0, not both 0.
 *   Each name at most once per kind.
 *
 * Version 2 adds the calibration's measured times (measured.h):
 * - "P <processes>": how many processes the times were measured on (a whole
 *   number >= 1); at most once; required with time lines, and only with them.
 * - "time <algorithm> <block bytes> <seconds>": the mean elapsed time over
 *   ranks (ē) measured on balanced arrivals, with blocks of that many bytes
 *   per rank, on P processes.  Any algorithm of the portfolio, native
 *   included (it has no schedule, hence no fitted line).  Both numbers
 *   finite and > 0; each (algorithm, size) at most once, at most
 *   PAT_MEASURED_MAX sizes per algorithm, and none or at least 2 per
 *   algorithm (above the largest size the time follows the last two).  Any
 *   order; they are kept sorted by size.
 * - "b2b <algorithm> <block bytes> <seconds>" (optional): the same, measured
 *   back to back (the mean of calls with no pause between them), by the same
 *   rules; needs the time lines.  pat-calibrate measures them at small
 *   blocks, where a call that follows a compute phase and one that follows
 *   another call can rank algorithms differently (docs/design.md §6).
 * Where a model file comes from (any version, optional, after the header):
 * - "# libpat-version <version>": the libpat whose pat-fit wrote it;
 * - "# platform <signature>": the platform signature pat-calibrate recorded
 *   (tools/platform.h: the MPI library and the operating system and
 *   machine).  Both are comments to a parser that does not know them, so
 *   files with them load in older libpats, and files without them here
 *   (libpat_version and platform stay ""; pat_model_origin_note says so).
 * A version 1 file has no P or time lines: it loads with fitted lines only
 * (pat_model_measured_note says so).  The writer puts the link line right
 * after the fitted lines, then gamma, and the time lines last, by algorithm
 * id, then size.
 */
#ifndef PAT_MODEL_FILE_H
#define PAT_MODEL_FILE_H

#include <stddef.h>

#include "model/model.h"

#define PAT_MODEL_FILE_VERSION 2 /* the version written; 1 and 2 are read */
#define PAT_MODEL_VERSION_KEY "libpat-version" /* "# libpat-version 0.1.0": the libpat that wrote the file */
#define PAT_MODEL_PLATFORM_KEY "platform"      /* "# platform <signature>": where its calibration ran */

/* Parse model text (name is used in messages).  On success fills mp (its
 * per-call fields take their defaults).  Returns PAT_OK, or PAT_EINVAL with
 * "name:line: what" (or "name: what" for the whole file) in err. */
int pat_model_parse(const char *text, const char *name, pat_model_params *mp, char *err, size_t errlen);

/* Read and parse a file.  Returns PAT_OK or PAT_EINVAL (message in err). */
int pat_model_read(const char *path, pat_model_params *mp, char *err, size_t errlen);

/* The text of mp in the current version (exact round trip: %.17g).
 * Returns a malloc'd string, or NULL when out of memory. */
char *pat_model_format(const pat_model_params *mp);

/* A warning when the model file was made by another libpat than `version`
 * (or by an unknown one: no version line) or calibrated on another platform
 * than `platform` (NULL: not compared); in out.  Returns 1 if there is one. */
int pat_model_origin_note(const pat_model_params *mp, const char *version, const char *platform, char *out,
                          size_t size);

/* NULL where the file gave gamma; otherwise a line saying that the default
 * stands in for it (for pat_info and the runtime's messages). */
const char *pat_model_gamma_note(const pat_model_params *mp);

/* Write pat_model_format(mp) to path.  Returns PAT_OK or PAT_EINVAL (err). */
int pat_model_write(const char *path, const pat_model_params *mp, char *err, size_t errlen);

#endif
