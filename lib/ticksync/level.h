/* lib/ticksync/level.h - the level (the offset at a time) and each way's
 * lower edge, from what the rings keep and the drift; and where a new
 * sample sits against those edges, which is how a server step and a
 * shorter route are told, and whether the edges themselves straddle a
 * step that came before there were edges to test it against. A value
 * type the estimator embeds.
 *
 * The level comes from one source at a time: each way's least measurement
 * once there are TS_TUNING.ways_min ways (the edges); before, the points'
 * weighted mean, once there are TS_TUNING.fit_points; before that, none
 * (the estimator takes the filter's chosen sample). */
#ifndef TICKSYNC_LEVEL_H
#define TICKSYNC_LEVEL_H

#include <stdbool.h>
#include <stdint.h>

#include "drift.h"
#include "rings.h"
#include "samples.h"

typedef struct {
    double  up_fraction;         /* the share of the round trip the way up is told to take */
    bool    fitted;              /* a level is known: fit_offset at fit_local */
    int64_t fit_local;
    double  fit_offset;
    bool    edges;               /* the ways' lower edges are known: */
    double  edge_up, edge_down;  /* at edge_local */
    int64_t edge_local;
    double  edge_slope;          /* the drift as the edges were brought to edge_local along it */
    double  gap_up, gap_down;    /* the spacing of each way's least measurements */
    int64_t edge_span;           /* how far back the ways that gave the edges go */
    double  trip_least;          /* the ways' least round trip, */
    double  trip_over;           /* ... over the edges' sum, */
    double  trip_scale;          /* ... and its scale where the edges straddle no step */
} ts_level_t;

/* How a sample sits against the ways' edges. */
typedef enum {
    TS_EDGES_HELD,      /* as queueing allows */
    TS_EDGES_STEPPED,   /* below one edge and above the other: the server's time stepped */
    TS_EDGES_SHORTER,   /* its round trip shorter than the two edges put together: a shorter route */
} ts_edges_t;

/* No level, for a path whose way up takes up_fraction of the round trip. */
void ts_level_init(ts_level_t *l, double up_fraction);
void ts_level_clear(ts_level_t *l);
/* The level read again from the rings, the drift and the last server step
 * (since: older ways serve until TS_TUNING.ways_min newer ones are in). */
void ts_level_update(ts_level_t *l, const ts_rings_t *r, const ts_drift_t *d, int64_t since);

/* How far s's two one-way measurements sit above the ways' edges as the
 * model puts them at its time (below: negative). Needs the edges. */
void ts_level_residuals(const ts_level_t *l, const ts_sample_t *s, double *r_up, double *r_down);
/* The level's error allowance, for the tests against the edges (a step, a
 * shorter route, a sample the model did not predict): TS_TUNING.expect_k
 * spacings of each way's least measurements, weighed as up_fraction splits
 * the offset; wide, since a sample taken for a step costs a confirming
 * one. Needs the edges. */
double ts_level_error(const ts_level_t *l);
/* The 95 % point of the level's error as the model states it, for the
 * expected error: each way's least measurement sits above its edge by an
 * exponential's worth of queueing whose mean is the way's spacing. Needs
 * the edges. */
double ts_level_error95(const ts_level_t *l);
/* How far below an edge a sample at local must sit to be a server step
 * (ts_level_against). Needs the edges. */
double ts_level_step_limit(const ts_level_t *l, const ts_drift_t *d, int64_t local, double server_step_us);
/* Where s sits against the edges. Below one by more than the model's error
 * of the edges at its time (the level's, the drift's over the time since,
 * at least dev_floor_us, at most server_step_us), which queueing (it only
 * adds) cannot do, while its round trip is not shorter by as much: a step
 * (*step: how far the server's time moved, + forward; *excess: the
 * sample's queueing, which *step may be off by). A round trip shorter by
 * more than that: a shorter route. Held while there are no edges. */
ts_edges_t ts_level_against(const ts_level_t *l, const ts_drift_t *d, const ts_sample_t *s, double server_step_us,
                            double *step, double *excess);
/* Whether the edges straddle a server step: the ways' least round trip
 * is above the edges' sum by more than server_step_us and than
 * TS_TUNING.straddle_z times the scale queueing gives it. */
bool ts_level_straddles(const ts_level_t *l, double server_step_us);
/* Whether the edges may straddle a step, which ts_level_straddles has not
 * yet told from queueing: the least round trip above the edges' sum by
 * more than server_step_us. */
bool ts_level_in_doubt(const ts_level_t *l, double server_step_us);

#endif
