/* lib/ticksync/step.h - a step of the server's time, as the samples tell
 * it: a sample below a way's edge (level.h) is held for a second one, two
 * in a row that read about the same step are one, and the step is read
 * again from the samples after it; a sample queued past a clear step is
 * dropped while the first waits; and the path's first ways, which came
 * before there were edges, are tested against the edges of the ways
 * after them. A value type the estimator embeds; what a step does to the
 * rest (the history moved, the drift carried) is the estimator's. */
#ifndef TICKSYNC_STEP_H
#define TICKSYNC_STEP_H

#include <stdbool.h>
#include <stdint.h>

#include "drift.h"
#include "level.h"
#include "rings.h"
#include "samples.h"

typedef struct {
    bool        held;           /* a sample below a way's edge waits for a second one: */
    bool        held_shorter;   /* ... below both, as a shorter route would put it (else a step) */
    bool        held_outlier;   /* ... an outlier, which only another confirms */
    ts_sample_t held_sample;
    double      held_step;      /* ... the step it reads, */
    double      held_excess;    /* ... its queueing, which the reading may be off by half of, */
    double      held_limit;     /* ... and the step limit at it */
    int         held_waits;     /* samples dropped while it waits (ts_step_still) */
    int64_t     since;          /* the last server step's local time (INT64_MIN: none): older ways
                                   are moved by it, and left out once newer ones suffice */
    ts_level_t  before;         /* the edges before the step, which the samples */
    double      least_up, least_down;   /* ... since meet at these least (ts_step_read), */
    double      stepped;        /* ... and the step they read, which the older history moved by */
    double      read_lo, read_hi;   /* where the samples' readings, each off by at most half its
                                       queueing and server_step_us, put the step */
} ts_step_t;

/* No step, nothing held: as a path starts. */
void ts_step_clear(ts_step_t *st);

/* The step read from each way's least residual against the edges before
 * it: half-way between the lowered way's reading and the raised one's,
 * taken at most at twice the least step the samples prove. */
double ts_step_estimate(double least_up, double least_down);
/* How far two readings of one step may differ: each is off by at most half
 * its queueing excess, and steps closer than server_step_us are one. */
double ts_step_agreement(double server_step_us, double excess_a, double excess_b);
/* Whether a step read as step, off by at most half its queueing excess,
 * is clear of the model's error: its least size over TS_TUNING.clear_k
 * step limits. */
bool ts_step_clear_of(double step, double excess, double limit);

/* s waits for a second sample: a step of step (its queueing excess), or,
 * shorter, a shorter route; outlier: s was rejected for its round trip;
 * limit: the step limit at s. */
void ts_step_hold(ts_step_t *st, const ts_sample_t *s, double step, double excess, bool shorter, bool outlier,
                  double limit);
/* Whether s, within both edges (l), leaves the held sample's step (or
 * shorter route) standing, so that it is dropped while that waits. */
bool ts_step_still(const ts_step_t *st, const ts_level_t *l, const ts_sample_t *s, double server_step_us);

/* The server's time stepped at local time at: the samples since are read
 * against the edges before it, l. */
void ts_step_start(ts_step_t *st, int64_t at, const ts_level_t *l);
/* s, within min_span_us of the step, joins the samples that read it;
 * true when the reading changed, by *move, which what was kept from
 * before the step moves by. A reading outside where the two first
 * samples (ts_step_settle) and each one read since put the step, each
 * off by at most half its queueing and server_step_us, is another move,
 * and is left. */
bool ts_step_read(ts_step_t *st, const ts_sample_t *s, double min_span_us, double server_step_us, double *move);
/* The first two samples have read the step as step_a and step_b, each off
 * by at most half its queueing excess (excess_a, excess_b) and by
 * server_step_us: a reading again outside both is another move. */
void ts_step_settle(ts_step_t *st, double server_step_us, double step_a, double excess_a, double step_b,
                    double excess_b);

/* Whether the path's first ways straddle a step, told against the edges
 * of as many ways after them (the rings, the level l and the drift d),
 * the way up taking up_fraction of the round trip. */
bool ts_step_in_first_ways(const ts_step_t *st, const ts_rings_t *r, const ts_level_t *l, const ts_drift_t *d,
                           double up_fraction, double server_step_us);
/* Whether the path's first ways are still to be tested and the edges may
 * straddle a step: the ways the test waits for are asked at the burst's
 * pace. */
bool ts_step_first_ways_doubtful(const ts_step_t *st, const ts_rings_t *r, const ts_level_t *l,
                                 double server_step_us);

#endif
