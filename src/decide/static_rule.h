/*
 * The static rule: when a classic algorithm replaces NATIVE as a call's
 * static choice (no exchange).  The all-gather's static choice (engine.h)
 * and the all-gatherv's (vchoice.h) both decide by it, so it sits below
 * both.  Pure C.
 */
#ifndef PAT_STATIC_RULE_H
#define PAT_STATIC_RULE_H

#include "model/model.h"

#define PAT_STATIC_MARGIN 0.10 /* a classic algorithm replaces NATIVE as the static choice only if its
                                  measured balanced time is at least this much smaller: calibration
                                  noise must not make a balanced code pay (a --quick model's pick at
                                  the smallest sizes can run slower than NATIVE) */

/* Does NATIVE stay against algorithm alt, which takes t_alt (s) where
 * NATIVE takes t_native (NAN: not known) for blocks of `bytes` on P ranks?
 * Yes unless alt is PAT_STATIC_MARGIN faster, and back to back too where mp
 * has both back-to-back times. */
int pat_static_native_stays(const pat_model_params *mp, int P, int alt, double t_alt, double t_native, double bytes);

#endif
