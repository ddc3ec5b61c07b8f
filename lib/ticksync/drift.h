/* lib/ticksync/drift.h - the drift (the frequency error, the offset's
 * slope) and its one error, from what the rings keep. A value type the
 * estimator embeds. docs/DESIGN.md ("The estimator") states the model; in
 * short, the drift comes from one source at a time:
 *
 * - before the ways span drift_min_span: the slope of the points' weighted
 *   least-squares line, whose standard error is the drift's noise;
 * - then: each way's lower edge over a window of the ways, its chord
 *   (Moon, Skelly and Towsley's skew estimator); the window is halved
 *   while the rate bends in it (its halves' chords apart, or its middle's
 *   apart from theirs: a turn); the two ways averaged where they queue
 *   alike, weighed by their chords' errors where one queues far more;
 * - where its ways are alike and the window shows no bend, or its halved
 *   window's chords agree with them (agree_k): the same chords over the
 *   long history's blocks (alike ways averaged, uneven ones weighed, as
 *   the window's), where their error is the smaller and no bend or curve
 *   (the runs test) shows over them.
 *
 * A new path carries the drift over (a path does not change the clock's
 * rate), weighed against the new path's by their errors, the carried one
 * growing stale; so does a server step, where the long history gave it. */
#ifndef TICKSYNC_DRIFT_H
#define TICKSYNC_DRIFT_H

#include <stdbool.h>
#include <stdint.h>

#include "fit.h"
#include "rings.h"

/* A source's drift and the standard error it states. */
typedef struct {
    double rate, se;
} ts_rate_t;

typedef struct {
    double    min_span;          /* drift_min_span_us */
    bool      known;             /* a source has given the drift */
    double    freq;              /* the drift: d(server - local)/d(local) */
    double    error;             /* its one error (ts_drift_error) */
    ts_rate_t line;              /* the points' line: its se is the drift's noise, for the bend test */
    bool      long_known;        /* the long history gives a drift: */
    ts_rate_t longer;
    ts_rate_t carried;           /* the drift a new path carried over (se NAN: none) */
    int64_t   carry_local;       /* and when */
    double    bend_us;           /* how far the kept window's line misses its bend */
    int64_t   bend_since;        /* ways before this are left out: the rate has changed since */
} ts_drift_t;

/* No drift yet, over windows of at least min_span_us. */
void ts_drift_init(ts_drift_t *d, int64_t min_span_us);

/* The drift from the points' line, once the points span min_span (and
 * while the ways since the server step at since do not). */
void ts_drift_from_points(ts_drift_t *d, const ts_rings_t *r, int64_t since);
/* The drift from the ways' edges since since, once they span min_span and
 * the points have given a line. */
void ts_drift_from_ways(ts_drift_t *d, const ts_rings_t *r, int64_t since);
/* The long history's drift, read again as a block closes. */
void ts_drift_from_blocks(ts_drift_t *d, const ts_rings_t *r);

/* The drift's one error, which everything that uses the drift takes (the
 * level, the step limit, the expected error, a carry): the source's that
 * gave it (for alike ways, the points' line's but at most alike_k times
 * their chords'), and where a carried drift counts too, the two weighed
 * together. INFINITY before a source states one. _or: unknown while the
 * drift is not known or states none. */
double ts_drift_error(const ts_drift_t *d);
double ts_drift_error_or(const ts_drift_t *d, double unknown);

/* A new path at local: the drift is carried over; the window and the long
 * history start over. */
void ts_drift_new_path(ts_drift_t *d, int64_t local);
/* A server step at local: the long history starts over (the rings'
 * blocks are cleared). A drift the long history gave (a rate steady for
 * some 1,024 samples) is carried over as over a new path: a step does
 * not change the clock's rate, and the ways since the step, which alone
 * give the drift once they span min_span, read it off a 20 s window. */
void ts_drift_stepped(ts_drift_t *d, int64_t local);

/* The points' weighted least-squares line (ts_fit_line): local time from
 * *lo, the earliest point's (*hi the latest's), and offset from the
 * origin's, each point weighted by how little its delay exceeds their
 * least. Its means are filled even where it returns false. */
bool ts_drift_points_line(const ts_rings_t *r, int64_t *lo, int64_t *hi, ts_fit_line_t *line);

#endif
