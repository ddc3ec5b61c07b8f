/* tests/ringfeed.h - an accepted sample fed to the rings and the drift in
 * the order the estimator's admit feeds them (every sample a point here,
 * as near-minimum ones are), for the tests of lib/ticksync/drift and
 * lib/ticksync/level; and the exponential queueing those tests draw. */
#ifndef TS_TESTS_RINGFEED_H
#define TS_TESTS_RINGFEED_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "drift.h"

/* s joins the rings, its way up told to take up_fraction of the round
 * trip, and the drift follows. */
static inline void ringfeed(ts_rings_t *r, ts_drift_t *d, const ts_sample_t *s, double up_fraction)
{
    ts_rings_follow(r, s->local, s->offset);
    if (ts_rings_add_ways(r, s, up_fraction, d->known ? d->freq : 0))
        ts_drift_from_blocks(d, r);
    ts_rings_add_point(r, s);
    ts_drift_from_points(d, r, INT64_MIN);
    ts_drift_from_ways(d, r, INT64_MIN);
}

/* Exponential queueing of mean q µs, from rand() (srand sets the draw). */
static inline double ringfeed_queueing(double q)
{
    double u = (rand() + 1.0) / ((double) RAND_MAX + 2.0);
    return -q * log(u);
}

#endif
