/* lib/ticksync/path.h - a new path, as the round trips tell it: the rise
 * rule (a run of round trips over the filter's least, longer than the
 * path's own queueing makes by chance) and the filter's least risen above
 * the ways' (a route longer by about the outlier limit, whose round trips
 * the filter lets in). A shorter route and a server step are told by the
 * level's tests against the edges (level.h). A value type the estimator
 * embeds; docs/DESIGN.md ("A new route") gives each rule's
 * reason. */
#ifndef TICKSYNC_PATH_H
#define TICKSYNC_PATH_H

#include <stdbool.h>
#include <stdint.h>

#include "drift.h"
#include "jitter.h"
#include "level.h"
#include "rings.h"
#include "samples.h"

typedef struct {
    int     rises;       /* samples in a row over the threshold, */
    int     needed;      /* ... how many make a new path, */
    double  rise;        /* ... and the threshold, as they were at the first, */
    int64_t from;        /* ... over the filter's least delay as it was then, */
    double  run_least;   /* ... and the run's least excess over it; */
    bool    held;        /* ... its rises spread as a queue's, at the last */
} ts_path_t;

/* No run of rises: a path starts. */
void ts_path_clear(ts_path_t *p);

/* How many rises in a row make a new path, where the run's least excess
 * over the filter's least is least: at least count, and more where the
 * path's own round trips (the jitter's) pass least so often that so many
 * in a row would come by chance more than TS_TUNING.rise_odds; at most
 * TS_TUNING.rises_max. */
int ts_path_rises_needed(const ts_jitter_t *j, double least, int count);

/* A round trip of delay, against the filter's least and the jitter: a
 * rise is over the least by rise_us, or by the filter's outlier limit
 * (the estimator's, as it rejects samples) where that is less, and
 * ts_path_rises_needed of them in a row are a new path (true), unless
 * they spread over their floor more widely than the path's own queueing
 * spreads over its (a queue that will drain: at most TS_TUNING.queue_odds
 * by chance), until TS_TUNING.rises_max. The jitter is read as the
 * estimator keeps it: each round trip's excess over the filter's least
 * added after this call, so that the run's earlier rises are its newest;
 * a run held as a queue when it ends, or taken for a new path, has them
 * marked there as no part of the path's queueing (ts_jitter_mark_queued). */
bool ts_path_rise(ts_path_t *p, const ts_filter_t *f, ts_jitter_t *j, int64_t delay, double rise_us,
                  double outlier_limit, int count);

/* Whether the filter's least, once full, has risen above the ways' least
 * round trip by more than the step limit, where the chance that the
 * filter's samples all rank above the ways before them that its least is
 * over, on one path (whose round trips are exchangeable), is at most
 * TS_TUNING.rise_odds: a longer route. */
bool ts_path_filter_risen(const ts_filter_t *f, const ts_rings_t *r, const ts_level_t *l, const ts_drift_t *d,
                          double server_step_us);

#endif
