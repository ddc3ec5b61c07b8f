/* lib/ticksync/tuning.h - the estimator's tuning numbers, in one place.
 * ticksync_config_t holds what a game may set (the path's asymmetry, the
 * interval, the filter's size); these are the model's own constants, each
 * a field with its meaning here, and its default and the figure that set
 * it in docs/DESIGN.md ("The estimator", the table of tuning numbers).
 * TS_TUNING is a static const value: every use folds to its constant.
 *
 * Capacities (how many of a thing are kept) are sizes, not tuning, and
 * stay macros beside their arrays: TS_JITTER_N, TS_FIT_EDGE_K and the
 * estimator's rings. */
#ifndef TICKSYNC_TUNING_H
#define TICKSYNC_TUNING_H

typedef struct {
    /* the rate */
    double max_freq;          /* a rate further than this from the server's is a broken clock: clamped */
    double phi_known;         /* the bound's drift allowance once the drift is estimated, per µs of age */
    double phi_unknown;       /* ... and before: a crystal's tolerance */
    double freq_z;            /* standard errors a drift must stand out by to be used in full */
    double carry_wander;      /* how fast a drift carried over a new path grows stale, per second */
    double alike_k;           /* the drift's error is at most this many alike chords' errors */
    double chord_at;          /* a way's chord runs over its lower hull from this share of the span to one less it */
    /* the samples */
    double dev_floor_us;      /* a filter's delay spread below this is measurement noise */
    double weight_floor_us;   /* excess delay that counts as none, for the points' weights */
    int    fit_points;        /* points before their mean is the estimate */
    int    ways_min;          /* samples before the ways' least measurements set the level */
    double uneven;            /* ways whose median spread above their edges differ by more are weighed apart */
    int    spread_min;        /* samples in the filter before its spread sets an outlier limit */
    double rise_odds;         /* a run of rises the path's own queueing gives this often is no new path, ... */
    double queue_odds;        /* ... nor one whose rises spread over their floor as it does this rarely (a queue), */
    int    rises_max;         /* ... but this many in a row are */
    int    step_waits;        /* samples queued past a clear step (or a shorter route) that its first waits through */
    double clear_k;           /* ... clear: its least size over this many step limits */
    double straddle_z;        /* edges whose sum is this many of its scale below the least round trip straddle a step */
    /* a bend of the rate */
    double bend_z;            /* a window whose halves' slopes differ by more than this many standard errors is halved ... */
    double bend_min_spans;    /* ... and the window spans this many drift_min_spans */
    double turn_z;            /* a turn in the window's middle stands out of its error by more than this */
    double runs_z;            /* the long history's runs test, one-sided */
    double agree_k;           /* a halved window's drift within this many errors of the long history's leaves it */
    int    blocks_min;        /* long-history blocks before it gives the drift */
    /* the expected error */
    double expect_k;          /* spacings of each way's least measurements the level may be off by */
    double expect_age;        /* the drift's error counts over this share of the edges' span */
    double bend_k;            /* times the bend the kept window's line misses */
    /* the jitter (the timeline's margin) */
    double jitter_q;          /* half this quantile of the round trips' excess ... */
    double jitter_q_low;      /* ... or of this one, when the tail above it is a separate mode: */
    double spike_ratio;       /* the high quantile over this many times the low one */
    /* polling */
    int    poll_streak;       /* samples in a row the model predicted before the interval doubles */
    int    resume_ratio;      /* a gap between asks this many times the usual one (and resume_gap_us) is a resume */
} ts_tuning_t;

static const ts_tuning_t TS_TUNING = {
    .max_freq = 1e-3,
    .phi_known = 15e-6,
    .phi_unknown = 100e-6,
    .freq_z = 2.0,
    .carry_wander = 0.05e-6,
    .alike_k = 2.0,
    .chord_at = 0.25,
    .dev_floor_us = 500.0,
    .weight_floor_us = 2000.0,
    .fit_points = 4,
    .ways_min = 8,
    .uneven = 4.0,
    .spread_min = 4,
    .rise_odds = 1e-6,
    .queue_odds = 1e-2,
    .rises_max = 60,
    .step_waits = 2,
    .clear_k = 2.0,
    .straddle_z = 20.0,
    .bend_z = 9.0,
    .bend_min_spans = 4.0,
    .turn_z = 27.0,
    .runs_z = 2.33,
    .agree_k = 4.0,
    .blocks_min = 32,
    .expect_k = 5.0,
    .expect_age = 3.0,
    .bend_k = 1.5,
    .jitter_q = 0.99,
    .jitter_q_low = 0.97,
    .spike_ratio = 3.0,
    .poll_streak = 4,
    .resume_ratio = 8,
};

#endif
