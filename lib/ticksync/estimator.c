/* lib/ticksync/estimator.c - ticksync_t, the clock estimator of ticksync.h.
 *
 * Each exchange gives NTP's offset and delay:
 *   delay  = (t4 - t1) - (t3 - t2)
 *   offset = t2 - (t1 + up_fraction * delay)     (= ((t2-t1)+(t3-t4))/2 when symmetric)
 * and, apart, its two one-way measurements (the "ways"): up = t2 - t1 is
 * the offset plus the way up, down = t4 - t3 the way down minus the offset.
 *
 * Admission. A sample over max_rtt, or whose delay is too far above the
 * filter's minimum for the filter's spread (chrony's maxdelaydevratio),
 * is rejected. The clock filter keeps the last filter_size accepted
 * samples; its least-delayed one is the "chosen" sample.
 *
 * Level (the offset now). One source at a time (update_level):
 *   - from TS_TUNING.ways_min accepted samples on, each way's least measurement over
 *     the last WAYS_MAX, apart: queueing only adds delay, so the least up
 *     is the offset plus the fixed way up and the least down the fixed way
 *     down minus the offset; their up_fraction-weighted difference is the
 *     offset, wrong only by the least queueing either way met;
 *   - before that, the weighted mean of the points (samples within the
 *     filter's spread of its minimum delay) once there are TS_TUNING.fit_points;
 *   - before that, the chosen sample alone.
 *
 * Drift (the frequency error, the level's slope). Once the accepted
 * samples span drift_min_span, the chord of each way's lower convex hull
 * (Moon, Skelly and Towsley's skew estimator), averaged over the two ways,
 * or, when one way queues far more than the other (their median spreads
 * above their edges differ over TS_TUNING.uneven times), weighted by how closely
 * each way's least measurements crowd its edge; until then, the slope of
 * the points' weighted least-squares line, once the points span
 * drift_min_span. That line's standard error is the drift's noise (for
 * uneven ways, the weighted chords' own; for alike ways, twice the chords'
 * own where that is less): the level's minima are brought to a common time
 * along the drift only as far as it stands out of it. For alike ways whose
 * window shows no bend, the same chords over a long history (each way's
 * least measurement of every BLOCK_SIZE samples, 1024 samples in all,
 * started over at a path reset or a server step) give the drift instead
 * where their error is the smaller: a steady rate read over five times
 * the span, to hundredths of a ppm where the window's chords wander by a
 * ppm, which tilted minima as old as the window by up to 0.2 ms.
 *
 * What the game sees is slewed toward the estimate at max_slew, so it never
 * runs backwards, and stepped only forward and only past step_us. A
 * sustained rise of the delay over the filter's minimum is a new path:
 * filter, points and ways start over with a burst, and the drift carries
 * over (a new path does not change the clock's rate), weighed against the
 * new path's by their errors, the carried one growing stale. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _WIN32
#include <windows.h>
#endif

#include "samples.h"
#include "fit.h"
#include "jitter.h"
#include "polling.h"
#include "ticksync.h"
#include "timeline.h"
#include "tuning.h"

#define WAYS_MAX   192   /* accepted samples whose one-way measurements are kept */
#define BLOCK_SIZE 8     /* accepted samples a block of the long history sums up */
#define BLOCKS_MAX 128   /* blocks kept: the long history, 1024 samples */

#define TURN_EVERY 4   /* samples between looks for a turn in the whole window */
#define ORIGIN_MOVE  (INT32_MAX - (INT64_C(1) << 27))   /* µs (34 minutes): a sample this far after the origin moves it, */
#define ORIGIN_AHEAD (INT64_C(1) << 30)                 /* to this far before the sample (18 minutes) */
#define OLDEST       INT32_MIN                          /* a ring's entry older than this against it is forgotten */

typedef ts_sample_t sample_t;

/* The rings hold 32-bit figures: a time as µs from the clock's origin
 * (origin_local), an offset as a float from the origin's offset
 * (origin_offset). The server's time against a monotonic clock is some
 * 1.7e15 µs, which a float holds to 134 s (2^27 µs); from the
 * origin what is left is a delay and the drift since, held to a small
 * fraction of a µs. The origin is the first sample of a history; it moves
 * on as samples come (follow_origin), and a server step moves its offset
 * (move_history). The rings keep 54 minutes at least: the long history at
 * an interval of up to 3 s (17 minutes at the default 1 s). */

/* A point: an accepted sample near the least delay. */
typedef struct {
    int32_t local;
    float   offset;
    int32_t delay;
} point_t;

/* An accepted sample's two one-way measurements, the offset inside each:
 * up = t2 - t1 (offset + the way up), down = t4 - t3 (the way down -
 * offset); against the origin, up - origin_offset and down +
 * origin_offset. */
typedef struct {
    int32_t local;
    float   up, down;
} ways_t;

/* Each way's least measurement of BLOCK_SIZE accepted samples (least
 * once detrended by the drift then known), with its time: a history of
 * each way's lower edge BLOCKS_MAX x BLOCK_SIZE samples long, for the
 * drift where it does not change. */
typedef struct {
    int32_t t_up, t_down;
    float   up, down;
} block_t;

struct ticksync_t {
    ticksync_config_t cfg;
    ts_filter_t filter;                     /* the last accepted samples */
    int64_t  origin_local;                  /* the rings' times are µs from this, */
    double   origin_offset;                 /* and their offsets from this */
    point_t  points[TICKSYNC_POINTS_MAX];   /* ring of points, for the drift */
    int      npoints, points_next;
    ways_t   ways[WAYS_MAX];                /* ring of accepted samples' one-way measurements */
    int      nways, ways_next;
    block_t  blocks[BLOCKS_MAX];            /* ring of each BLOCK_SIZE ways' least up and least down */
    int      nblocks, blocks_next;
    block_t  open_block;                    /* the block being filled, open_count ways so far */
    int      open_count;
    bool     long_known;                    /* long_slope over the blocks, as the last one closed */
    double   long_freq, long_se;
    double   freq;
    double   carry_freq, carry_se;          /* the drift as a path reset found it (carry_se NAN: none) */
    int64_t  carry_local;                   /* and when (local time) */
    double   freq_se;                       /* the points' line's slope's standard error: the drift's noise */
    double   alike_se;                      /* the ways' chords' when alike (the expected error, the level, a carry) */
    double   bend_us;                       /* how far the kept window's line misses its bend */
    double   chord_se;                      /* the ways' chord's, while it gives the drift (NAN: it does not yet) */
    bool     freq_known;
    bool     fitted;                        /* the line is the estimate (else the chosen sample) */
    int64_t  fit_local;                     /* the line: fit_offset at fit_local, slope freq */
    double   fit_offset;
    int      rises;                         /* samples in a row over the path-change threshold */
    double   edge_up, edge_down;            /* the ways' lower edges at edge_local (level_from_ways) */
    int64_t  edge_local;
    double   edge_slope;
    double   gap_up, gap_down;              /* the spacing of each way's least measurements */
    int64_t  edge_span;                     /* how far back the ways that gave the edges go */
    bool     edges;
    bool     suspect;                       /* a sample below a way's edge waits for a second one */
    bool     suspect_shorter;               /* ... below both, as a shorter route would put it (else a step) */
    sample_t suspect_sample;
    double   suspect_step, suspect_excess;
    int64_t  since;                         /* the last server step's local time: older ways are
                                               moved by it, and left out once newer ones suffice */
    int64_t  bend_since;                    /* older ways are left out: the drift has changed since */
    double   turn;                          /* the whole window's turn, as last looked for (turn_in_middle) */
    unsigned turn_looked;                   /* samples the whole window's turn was wanted at */
    ts_poll_t poll;                         /* when to ask next */
    bool     shown;                         /* the slewed offset the game sees */
    int64_t  shown_local;
    double   shown_offset;
    int64_t  last_now;
    ts_jitter_t jitter;                     /* round trips' excess over the filter's least */
    ticksync_timeline_t timeline;
    ticksync_stats_t stats;
};

void ticksync_config_default(ticksync_config_t *c)
{
    *c = (ticksync_config_t) {
        .max_rtt_us = 500000,
        .max_delay_dev_ratio = 10.0,
        .filter_size = 8,
        .burst = 6,
        .burst_interval_us = 100000,
        .interval_us = 1000000,
        .max_slew = 0.05,
        .step_us = 200000,
        .up_fraction = 0.5,
        .drift_points = 64,
        .drift_min_span_us = 20000000,
        .path_change_us = 20000,
        .path_change_count = 6,
        .synced_samples = 4,
        .server_step_us = 4000,
        .resume_gap_us = 2000000,
        .interval_max_us = 1000000,
    };
}

static bool config_ok(const ticksync_config_t *c)
{
    return c->max_rtt_us > 0 && c->max_delay_dev_ratio > 0 && c->filter_size >= 1
           && c->filter_size <= TICKSYNC_FILTER_MAX && c->burst >= 0 && c->burst_interval_us > 0
           && c->interval_us > 0 && c->max_slew > 0 && c->max_slew < 1 && c->step_us > 0 && c->up_fraction >= 0
           && c->up_fraction <= 1 && c->drift_points >= 3 && c->drift_points <= TICKSYNC_POINTS_MAX
           && c->drift_min_span_us > 0 && c->path_change_us > 0 && c->path_change_count >= 1
           && c->synced_samples >= 1 && c->server_step_us > 0 && c->resume_gap_us > 0
           && c->interval_max_us >= 0;
}

ticksync_t *ticksync_new(const ticksync_config_t *config)
{
    ticksync_config_t c;
    if (config)
        c = *config;
    else
        ticksync_config_default(&c);
    if (!config_ok(&c))
        return NULL;
    ticksync_t *self = calloc(1, sizeof *self);
    if (!self)
        return NULL;
    self->cfg = c;
    ts_filter_init(&self->filter, c.filter_size);
    ts_poll_init(&self->poll, c.burst, c.burst_interval_us, c.interval_us, c.interval_max_us, c.resume_gap_us);
    self->since = self->bend_since = INT64_MIN;
    self->chord_se = self->alike_se = NAN;
    self->carry_se = NAN;
    return self;
}

void ticksync_destroy(ticksync_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    free(*self_p);
    *self_p = NULL;
}

void ticksync_set_interval(ticksync_t *self, int64_t interval_us)
{
    if (interval_us > 0)
        ts_poll_set_interval(&self->poll, self->cfg.interval_us = interval_us);
}

#ifdef _WIN32
int64_t ticksync_local_us(void)   /* the performance counter: Windows' monotonic clock */
{
    static LARGE_INTEGER freq;
    LARGE_INTEGER now;
    if (!freq.QuadPart)
        QueryPerformanceFrequency(&freq);
    QueryPerformanceCounter(&now);
    return (int64_t) (now.QuadPart / freq.QuadPart * 1000000 + now.QuadPart % freq.QuadPart * 1000000 / freq.QuadPart);
}
#else
int64_t ticksync_local_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}
#endif

/* ---- filter and drift ---------------------------------------------------- */

static const sample_t *chosen(const ticksync_t *self)
{
    return ts_filter_chosen(&self->filter);
}

static int64_t filter_min_delay(const ticksync_t *self)
{
    return ts_filter_min_delay(&self->filter);
}

static double filter_spread(const ticksync_t *self)
{
    return ts_filter_spread(&self->filter);
}

/* The ring offset of the oldest of n entries written before next, in a
 * ring of size. */
static int ring_first(int next, int n, int size)
{
    return (next - n + size) % size;
}

/* A time kept in a ring, as local time. */
static int64_t local_of(const ticksync_t *self, int32_t t)
{
    return self->origin_local + t;
}

/* The earlier of a block's two times. */
static int32_t block_time(const block_t *b)
{
    return b->t_up < b->t_down ? b->t_up : b->t_down;
}

/* The i-th oldest point. */
static const point_t *point_at(const ticksync_t *self, int i)
{
    int size = self->cfg.drift_points;
    return &self->points[(ring_first(self->points_next, self->npoints, size) + i) % size];
}

/* A point's offset is wrong by at most half its delay's excess over the
 * least delay seen: the less excess, the more weight. */
static double point_weight(const point_t *p, int64_t dmin)
{
    double excess = (double) (p->delay - dmin) + TS_TUNING.weight_floor_us;
    return 1.0 / (excess * excess);
}

/* The points' weighted means: local time (from lo, the earliest) and
 * offset (from the origin's), each point weighted by point_weight; *dmin
 * is their least delay. */
static void points_mean(const ticksync_t *self, int64_t *lo, int64_t *dmin, double *mt, double *mo)
{
    *lo = INT64_MAX;
    *dmin = INT64_MAX;
    for (int i = 0; i < self->npoints; i++) {
        const point_t *p = point_at(self, i);
        *lo = local_of(self, p->local) < *lo ? local_of(self, p->local) : *lo;
        *dmin = p->delay < *dmin ? p->delay : *dmin;
    }
    double sw = 0, t = 0, o = 0;
    for (int i = 0; i < self->npoints; i++) {
        const point_t *p = point_at(self, i);
        double w = point_weight(p, *dmin);
        sw += w;
        t += w * (double) (local_of(self, p->local) - *lo);
        o += w * p->offset;
    }
    *mt = t / sw;
    *mo = o / sw;
}

static double clamp_freq(double f)
{
    return f > TS_TUNING.max_freq ? TS_TUNING.max_freq : f < -TS_TUNING.max_freq ? -TS_TUNING.max_freq : f;
}

/* The ways' entries from the last server step on (all of them when there
 * was none, or after a path reset): returns how many; *first is the ring
 * offset of the first. */
static int ways_since_step(const ticksync_t *self, int *first)
{
    int n = self->nways, start = ring_first(self->ways_next, n, WAYS_MAX), skip = 0;
    while (skip < n && local_of(self, self->ways[(start + skip) % WAYS_MAX].local) < self->since)
        skip++;
    *first = (start + skip) % WAYS_MAX;
    return n - skip;
}

/* Whether the ways since the last server step span enough for
 * slope_from_ways: until they do, the drift found before the step stays. */
static bool ways_span(const ticksync_t *self)
{
    int first, n = ways_since_step(self, &first);
    int64_t t0 = local_of(self, self->ways[first].local);
    int64_t last = local_of(self, self->ways[(first + n - 1 + WAYS_MAX) % WAYS_MAX].local);
    return n >= TS_TUNING.ways_min && last - t0 >= self->cfg.drift_min_span_us;
}

/* A path's change does not change the clock's rate: the drift known when
 * the path changed counts against the new path's own, each by its error,
 * the carried one's growing by TS_TUNING.carry_wander a second (a crystal's rate
 * wanders with its temperature) so that the new path's takes over. */
static double with_carried(const ticksync_t *self, double f, double se, int64_t now)
{
    if (!isfinite(self->carry_se))
        return f;
    if (!isfinite(se))
        return self->carry_freq;
    double carried = hypot(self->carry_se, TS_TUNING.carry_wander * (double) (now - self->carry_local) / 1e6);
    double v = se * se, c = carried * carried;
    return (f * c + self->carry_freq * v) / (v + c);
}

/* The points' line, a weighted least-squares fit of offset on local time,
 * once the points span drift_min_span: its slope's standard error is the
 * drift's noise (level_from_ways shrinks the drift by it), and its slope
 * is the drift until the ways span enough to give it (slope_from_ways). */
static void fit_line(ticksync_t *self)
{
    int n = self->npoints;
    if (n < TS_TUNING.fit_points)
        return;
    int64_t lo, dmin, hi = INT64_MIN;
    double mt, mo;
    points_mean(self, &lo, &dmin, &mt, &mo);
    for (int i = 0; i < n; i++) {
        int64_t at = local_of(self, point_at(self, i)->local);
        hi = at > hi ? at : hi;
    }
    if (hi - lo < self->cfg.drift_min_span_us)
        return;
    double stt = 0, sto = 0;
    for (int i = 0; i < n; i++) {
        const point_t *p = point_at(self, i);
        double w = point_weight(p, dmin), dt = (double) (local_of(self, p->local) - lo) - mt;
        stt += w * dt * dt;
        sto += w * dt * (p->offset - mo);
    }
    if (stt <= 0)
        return;
    double f = sto / stt, rss = 0;
    for (int i = 0; i < n; i++) {
        const point_t *p = point_at(self, i);
        double r = p->offset - mo - f * ((double) (local_of(self, p->local) - lo) - mt);
        rss += point_weight(p, dmin) * r * r;
    }
    self->freq_se = n > 2 ? sqrt(rss / (n - 2) / stt) : INFINITY;
    self->freq_known = true;
    if (!ways_span(self))
        self->freq = clamp_freq(with_carried(self, f, self->freq_se, hi));
}

/* A sample near the filter's minimum delay (within the filter's spread)
 * is as good as the minimum: it becomes a point of the line, so the line
 * averages many of them and follows drift between new minima. */
static void add_point(ticksync_t *self, const sample_t *s)
{
    /* a filter of one or two samples may hold nothing but a spike */
    int trusted = self->cfg.synced_samples < self->cfg.filter_size ? self->cfg.synced_samples : self->cfg.filter_size;
    double spread = filter_spread(self);
    if (self->filter.n < trusted
        || (double) (s->delay - filter_min_delay(self)) > fmax(spread, TS_TUNING.dev_floor_us))
        return;
    self->points[self->points_next] = (point_t) { .local = (int32_t) (s->local - self->origin_local),
                                                   .offset = (float) (s->offset - self->origin_offset),
                                                   .delay = (int32_t) s->delay };
    self->points_next = (self->points_next + 1) % self->cfg.drift_points;
    if (self->npoints < self->cfg.drift_points)
        self->npoints++;
    fit_line(self);
}

/* The drift from the long history's blocks, as slope_from_ways takes it
 * from the ways, with its error: *slope and *err. False while there are
 * too few blocks, or where a bend shows over them (their halves' drifts
 * apart by more than TS_TUNING.bend_us over the span and by more than TS_TUNING.bend_z of
 * their errors): a rate that changes is the ways' window's to follow. */
static bool long_slope(const ticksync_t *self, double *slope, double *err)
{
    if (self->nblocks < TS_TUNING.blocks_min)
        return false;
    int first = ring_first(self->blocks_next, self->nblocks, BLOCKS_MAX), n = self->nblocks;
    const block_t *oldest = &self->blocks[first];
    int64_t t0 = block_time(oldest);
    double tu[BLOCKS_MAX], yu[BLOCKS_MAX], td[BLOCKS_MAX], yd[BLOCKS_MAX];
    for (int i = 0; i < n; i++) {
        const block_t *b = &self->blocks[(first + i) % BLOCKS_MAX];
        tu[i] = (double) ((int64_t) b->t_up - t0);
        yu[i] = b->up;
        td[i] = (double) ((int64_t) b->t_down - t0);
        yd[i] = b->down;
    }
    double span = fmax(tu[n - 1], td[n - 1]);
    int mid = n / 2;
    double e1, e2, e3, e4;
    double older = (ts_fit_chord(tu, yu, mid, &e1) - ts_fit_chord(td, yd, mid, &e2)) / 2;
    double newer = (ts_fit_chord(tu + mid, yu + mid, n - mid, &e3)
                    - ts_fit_chord(td + mid, yd + mid, n - mid, &e4)) / 2;
    double halves_se = hypot(hypot(e1, e2), hypot(e3, e4)) / 2;
    if (fabs(newer - older) * span / 4 > TS_TUNING.bend_us && fabs(newer - older) > TS_TUNING.bend_z * halves_se)
        return false;
    if (ts_fit_too_few_runs(tu, yu, n, TS_TUNING.runs_z) || ts_fit_too_few_runs(td, yd, n, TS_TUNING.runs_z))
        return false;   /* a curve the halves do not show (a sinusoid's over about a period) */
    double eu, ed;
    double su = ts_fit_chord(tu, yu, n, &eu), sd = ts_fit_chord(td, yd, n, &ed);
    *slope = (su - sd) / 2;
    *err = ts_fit_alike_error(su, eu, sd, ed);
    return true;
}

/* Whether a window spanning span whose halves' drifts are apart by apart
 * is bent: the line over it misses the bend by more than bend_us, the
 * halves differ by more than bend_z of the drift's noise, and the window
 * spans bend_min_spans drift_min_spans, so that its newer half is kept. */
static bool bent(const ticksync_t *self, double apart, double span)
{
    return apart * span / 4 > TS_TUNING.bend_us && apart > TS_TUNING.bend_z * self->freq_se
           && span >= TS_TUNING.bend_min_spans * (double) self->cfg.drift_min_span_us;
}

/* A rate's turn (its most or least) in the middle of the window [from, n)
 * leaves the two halves' drifts (older, newer; hulls ou, od, nu, nd) alike,
 * and a line over the window then misses the turn as a bend of the same
 * size would. The middle half's drift against the halves' mean, doubled,
 * is the change a bend between the halves would have: returned (as its
 * size) where it would bend the window and stands out of the chords' own
 * errors by bend_z of chord_k times them (a chord's stated error is its
 * typical one: test_fit), else 0. */
static double turn_in_middle(const ticksync_t *self, const double *t, const double *up, const double *down,
                             int from, int n, const ts_fit_hull_t *const halves[4], double older, double newer)
{
    int mid = from + (n - from) / 2, q1 = from + (n - from) / 4, q3 = from + 3 * (n - from) / 4;
    ts_fit_hull_t mu, md;
    ts_fit_hull(t, up, q1, q3, &mu);
    ts_fit_hull(t, down, q1, q3, &md);
    double middle = (ts_fit_hull_slope(t, up, &mu) - ts_fit_hull_slope(t, down, &md)) / 2;
    double turn = fabs(2 * (middle - (older + newer) / 2));
    if (turn <= fabs(newer - older) || !bent(self, turn, t[n - 1] - t[from]))
        return 0;
    double e1, e2, e3, e4, e5, e6;
    ts_fit_chord_of(t, up, q1, q3, &mu, &e5);
    ts_fit_chord_of(t, down, q1, q3, &md, &e6);
    ts_fit_chord_of(t, up, from, mid, halves[0], &e1);
    ts_fit_chord_of(t, down, from, mid, halves[1], &e2);
    ts_fit_chord_of(t, up, mid, n, halves[2], &e3);
    ts_fit_chord_of(t, down, mid, n, halves[3], &e4);
    double se = hypot(hypot(e5, e6) / 2, hypot(hypot(e1, e2), hypot(e3, e4)) / 4);
    return turn > TS_TUNING.bend_z * TS_TUNING.chord_k * se ? turn : 0;
}

/* The drift from the ways' lower edges, once they span drift_min_span and
 * the points' line has a standard error too: the way up rises by it and
 * the way down falls by it, so each way gives it apart and the two are
 * averaged. The points' least-squares slope, which near-minimum samples of
 * a heavy tail still tilt by tens of ppm, is not used once this is. */
static void slope_from_ways(ticksync_t *self)
{
    if (!self->freq_known || !ways_span(self))
        return;
    int first, n = ways_since_step(self, &first);
    int64_t t0 = local_of(self, self->ways[first].local);
    double t[WAYS_MAX], up[WAYS_MAX], down[WAYS_MAX];
    for (int i = 0; i < n; i++) {
        const ways_t *w = &self->ways[(first + i) % WAYS_MAX];
        t[i] = (double) (local_of(self, w->local) - t0);
        up[i] = w->up;
        down[i] = w->down;
    }
    /* A drift that changes bends the edges: the slopes of their older and
     * newer halves differ by about the bend's curvature times half the
     * span, and a line over the whole span misses the bend by a quarter of
     * that times the span. While that is more than TS_TUNING.bend_us, only the newer
     * half is used, for the drift and for the level, as long as it spans
     * TS_TUNING.bend_min_spans / 2 drift_min_spans: a line over 40 s misses a bend
     * of 0.3 ppm a second by 40 us, where chords over 20 s are off by 5-25
     * ppm under 2 ms of jitter. bend_us is the kept window's. */
    int from = 0;
    self->bend_us = 0;
    double dms = (double) self->cfg.drift_min_span_us;
    /* each way's hull of the window [from, n) as the halves leave it:
     * the halves' joined, or the newer half's once the window is it */
    ts_fit_hull_t hu, hd, ou, od, nu, nd;
    bool hulls = false;
    while (n - from >= 2 * TS_TUNING.ways_min && t[n - 1] - t[from] >= 2 * dms) {
        int mid = from + (n - from) / 2;
        ts_fit_hull(t, up, from, mid, &ou);
        ts_fit_hull(t, down, from, mid, &od);
        ts_fit_hull(t, up, mid, n, &nu);
        ts_fit_hull(t, down, mid, n, &nd);
        double older = (ts_fit_hull_slope(t, up, &ou) - ts_fit_hull_slope(t, down, &od)) / 2;
        double newer = (ts_fit_hull_slope(t, up, &nu) - ts_fit_hull_slope(t, down, &nd)) / 2;
        double span = t[n - 1] - t[from], apart = fabs(newer - older);
        if (!bent(self, apart, span) && span >= TS_TUNING.bend_min_spans * dms) {
            /* the whole window's turn is looked for every TURN_EVERY
             * samples (it moves by a few samples' worth between), a
             * halved one's each time */
            const ts_fit_hull_t *halves[4] = { &ou, &od, &nu, &nd };
            if (from > 0)
                apart = fmax(apart, turn_in_middle(self, t, up, down, from, n, halves, older, newer));
            else {
                if (self->turn_looked++ % TURN_EVERY == 0)
                    self->turn = turn_in_middle(self, t, up, down, from, n, halves, older, newer);
                apart = fmax(apart, self->turn);
            }
        }
        self->bend_us = apart * span / 4;
        if (!bent(self, apart, span)) {
            ts_fit_hull_join(t, up, &ou, &nu, &hu);
            ts_fit_hull_join(t, down, &od, &nd, &hd);
            hulls = true;
            break;
        }
        from = mid;
        hu = nu;
        hd = nd;
        hulls = true;
    }
    if (!hulls) {
        ts_fit_hull(t, up, from, n, &hu);
        ts_fit_hull(t, down, from, n, &hd);
    }
    self->bend_since = local_of(self, self->ways[(first + from) % WAYS_MAX].local);
    double *tf = t + from, *uf = up + from, *df = down + from;
    int m = n - from;
    double eu, ed, su = ts_fit_chord_of(t, up, from, n, &hu, &eu), sd = ts_fit_chord_of(t, down, from, n, &hd, &ed);
    double spu = ts_fit_spread(tf, uf, m, su), spd = ts_fit_spread(tf, df, m, sd);
    if (spu <= TS_TUNING.uneven * spd && spd <= TS_TUNING.uneven * spu) {
        /* Alike: each way counts the same, and the drift's error for the
         * level is the points' line's, which keeps a drift that noise may
         * have made from tilting it. The chords' own error, or how far the
         * two ways' drifts are apart if more, is what the expected error
         * takes (ticksync_expected_error). */
        self->chord_se = NAN;
        self->alike_se = ts_fit_alike_error(su, eu, sd, ed);
        double fs = (su - sd) / 2;
        if (from == 0 && self->long_known && self->long_se < self->alike_se) {   /* no bend, and more exact */
            fs = self->long_freq;
            self->alike_se = self->long_se;
        }
        self->freq = clamp_freq(with_carried(self, fs, self->alike_se, t0 + (int64_t) t[n - 1]));
        return;
    }
    /* One way queues and the other does not (a congested uplink): the clean
     * way's chord is the more exact; the two are weighted by their errors,
     * and theirs is the drift's, where the points' line (tilted by the
     * queueing way) would overstate it and the drift be under-used. */
    double wu = ed * ed / (eu * eu + ed * ed), wd = 1 - wu;
    self->chord_se = hypot(wu * eu, wd * ed);
    self->freq = clamp_freq(with_carried(self, wu * su - wd * sd, self->chord_se, t0 + (int64_t) t[n - 1]));
    self->alike_se = NAN;
}

/* The drift's error, the one figure everything that uses the drift takes
 * (the level weighing it, the expected error, a path reset carrying it):
 * the ways' chord's when it gives the drift from uneven ways, else the
 * points' line's, but for alike ways no more than TS_TUNING.alike_k times their
 * chords' own error. The chords' stated error is their typical size, not
 * a bound (test_fit: |error| / stated p90 4.2), so it is not taken as is;
 * and the points' line alone, which near-minimum points under a wide
 * queueing tilt, can be ten times what two agreeing chords show (mobile:
 * 10 ppm against 1.4), which left the drift under-used and the level
 * lagging by the rest of it times its minima's age. INFINITY before the
 * points give a line. */
static double drift_error(const ticksync_t *self)
{
    double se = isfinite(self->chord_se) ? self->chord_se : self->freq_se;
    return isfinite(self->alike_se) ? fmin(se, TS_TUNING.alike_k * self->alike_se) : se;
}

/* The line's level from each way's least measurement, apart: queueing only
 * ever adds delay, so over the ways ring the least up is the offset plus
 * the path's fixed way up, and the least down its fixed way down minus the
 * offset (each brought to the newest sample's time along the line's slope).
 * Their up_fraction-weighted difference is the offset, wrong only by the
 * least queueing either way met, which shrinks as samples come, where a
 * single sample's (or a mean of near-minimum samples') error is the
 * difference of two queueings met together. */
static void level_from_ways(ticksync_t *self)
{
    int64_t ref = local_of(self, self->ways[(self->ways_next + WAYS_MAX - 1) % WAYS_MAX].local);
    /* a slope not yet told from noise would tilt the minima by its noise
     * times their age: it counts by how far it stands out of its error,
     * f^4 / (f^4 + (z se)^4): half at z standard errors, as good as none
     * below, nearly whole above (with f^2 / (f^2 + (z se)^2) a clear drift
     * of 20 ppm at 3 ppm of error was used at 92 %, and the minima fell
     * behind by 8 % of the drift over their age) */
    double se = drift_error(self), f2 = self->freq * self->freq, se2 = TS_TUNING.freq_z * TS_TUNING.freq_z * se * se;
    double slope = self->freq_known && f2 + se2 > 0 ? self->freq * f2 * f2 / (f2 * f2 + se2 * se2) : 0;
    /* after a server step, the older ways (moved by the step's estimate)
     * serve until TS_TUNING.ways_min newer ones are in */
    double ups[TS_FIT_EDGE_K] = { 0 }, downs[TS_FIT_EDGE_K] = { 0 };   /* n is at least TS_TUNING.ways_min: filled */
    int nup = 0, ndown = 0;
    int first, n = ways_since_step(self, &first);
    if (n < TS_TUNING.ways_min) {
        n = self->nways;
        first = ring_first(self->ways_next, n, WAYS_MAX);
    }
    while (n > TS_TUNING.ways_min && local_of(self, self->ways[first].local) < self->bend_since) {   /* before a bend */
        first = (first + 1) % WAYS_MAX;
        n--;
    }
    for (int i = 0; i < n; i++) {
        const ways_t *w = &self->ways[(first + i) % WAYS_MAX];
        double along = slope * (double) (ref - local_of(self, w->local));
        ts_fit_keep_least(ups, &nup, w->up + along);
        ts_fit_keep_least(downs, &ndown, w->down - along);
    }
    double up = ups[0] + self->origin_offset, down = downs[0] - self->origin_offset;
    double f = self->cfg.up_fraction;
    self->fit_local = ref;
    self->fit_offset = (1 - f) * up - f * down;
    self->fitted = true;
    self->edge_up = up;
    self->edge_down = down;
    self->edge_local = ref;
    self->edge_slope = slope;
    self->gap_up = ts_fit_spacing(ups, nup);
    self->gap_down = ts_fit_spacing(downs, ndown);
    self->edge_span = ref - local_of(self, self->ways[first].local);
    self->edges = true;
}

/* The estimate's level, from one source: each way's least measurement
 * once there are TS_TUNING.ways_min samples; before, the points' weighted mean
 * (which averages the asymmetric part of near-best samples' jitter away)
 * once there are TS_TUNING.fit_points; before that, the chosen sample alone. */
static void update_level(ticksync_t *self)
{
    if (self->nways >= TS_TUNING.ways_min) {
        level_from_ways(self);
    } else if (self->npoints >= TS_TUNING.fit_points) {
        int64_t lo, dmin;
        double mt, mo;
        points_mean(self, &lo, &dmin, &mt, &mo);
        self->fit_local = lo + (int64_t) llround(mt);
        self->fit_offset = mo + self->origin_offset;
        self->fitted = true;
    } else {
        self->fitted = false;
    }
}

/* A way's measurement joins the open block; a full block joins the ring,
 * and the long history's drift is read again, once per BLOCK_SIZE samples. */
static void add_block(ticksync_t *self, const ways_t *w)
{
    block_t *b = &self->open_block;
    double s = self->freq_known ? self->freq : 0;
    if (self->open_count == 0) {
        *b = (block_t) { .t_up = w->local, .up = w->up, .t_down = w->local, .down = w->down };
    } else {
        if (w->up - s * (double) ((int64_t) w->local - b->t_up) < b->up) {
            b->up = w->up;
            b->t_up = w->local;
        }
        if (w->down + s * (double) ((int64_t) w->local - b->t_down) < b->down) {
            b->down = w->down;
            b->t_down = w->local;
        }
    }
    if (++self->open_count < BLOCK_SIZE)
        return;
    self->open_count = 0;
    self->blocks[self->blocks_next] = *b;
    self->blocks_next = (self->blocks_next + 1) % BLOCKS_MAX;
    if (self->nblocks < BLOCKS_MAX)
        self->nblocks++;
    self->long_known = long_slope(self, &self->long_freq, &self->long_se);
}

static void clear_blocks(ticksync_t *self)
{
    self->nblocks = self->blocks_next = self->open_count = 0;
    self->long_known = false;
}

static void add_ways(ticksync_t *self, const sample_t *s)
{
    double f = self->cfg.up_fraction, offset = s->offset - self->origin_offset;
    self->ways[self->ways_next] = (ways_t) { .local = (int32_t) (s->local - self->origin_local),
                                             .up = (float) (offset + f * (double) s->delay),
                                             .down = (float) ((1 - f) * (double) s->delay - offset) };
    add_block(self, &self->ways[self->ways_next]);
    self->ways_next = (self->ways_next + 1) % WAYS_MAX;
    if (self->nways < WAYS_MAX)
        self->nways++;
}

/* A new path, seen at local: the drift is carried over, the rest starts over. */
static void reset_filter(ticksync_t *self, int64_t local)
{
    if (self->freq_known) {
        self->carry_local = local;
        self->carry_freq = self->freq;
        self->carry_se = drift_error(self);   /* not finite: none */
    }
    ts_filter_clear(&self->filter);
    self->npoints = self->points_next = 0;
    self->nways = self->ways_next = 0;
    clear_blocks(self);
    self->edges = self->suspect = false;
    self->since = self->bend_since = INT64_MIN;
    self->turn = 0;
    self->turn_looked = 0;   /* looked for at the next sample */
    self->fitted = false;
    self->rises = 0;
    ts_poll_burst(&self->poll);
    self->stats.path_resets++;
}

/* A round trip's excess over the filter's least, accepted or not: a
 * game's messages meet the same queueing, tail included (jitter.h). */
static void note_excess(ticksync_t *self, int64_t delay)
{
    if (chosen(self))
        ts_jitter_add(&self->jitter, (double) (delay - filter_min_delay(self)));
}

/* The rings' origin is a history's first sample (every ring empty); once
 * a sample is ORIGIN_MOVE after it, it moves to ORIGIN_AHEAD before the
 * sample, and what is then older than OLDEST against it is forgotten, from
 * each ring's oldest on: 54 minutes and more are kept. */
static void follow_origin(ticksync_t *self, const sample_t *s)
{
    if (self->nways == 0 && self->npoints == 0 && self->nblocks == 0 && self->open_count == 0) {
        self->origin_local = s->local;
        self->origin_offset = s->offset;
        return;
    }
    if (s->local - self->origin_local < ORIGIN_MOVE)
        return;
    int64_t dt = s->local - ORIGIN_AHEAD - self->origin_local;
    double doff = s->offset - self->origin_offset;
    self->origin_local += dt;
    self->origin_offset = s->offset;
    int first = ring_first(self->ways_next, self->nways, WAYS_MAX);
    for (; self->nways > 0 && self->ways[first].local - dt < OLDEST; self->nways--)
        first = (first + 1) % WAYS_MAX;
    for (int i = 0; i < self->nways; i++) {
        ways_t *w = &self->ways[(first + i) % WAYS_MAX];
        w->local = (int32_t) (w->local - dt);
        w->up = (float) (w->up - doff);
        w->down = (float) (w->down + doff);
    }
    int size = self->cfg.drift_points;
    first = ring_first(self->points_next, self->npoints, size);
    for (; self->npoints > 0 && self->points[first].local - dt < OLDEST; self->npoints--)
        first = (first + 1) % size;
    for (int i = 0; i < self->npoints; i++) {
        point_t *p = &self->points[(first + i) % size];
        p->local = (int32_t) (p->local - dt);
        p->offset = (float) (p->offset - doff);
    }
    first = ring_first(self->blocks_next, self->nblocks, BLOCKS_MAX);
    for (; self->nblocks > 0 && block_time(&self->blocks[first]) - dt < OLDEST; self->nblocks--)
        first = (first + 1) % BLOCKS_MAX;
    if (self->open_count > 0 && block_time(&self->open_block) - dt < OLDEST)
        self->open_count = 0;
    for (int i = 0; i < self->nblocks + (self->open_count > 0); i++) {
        block_t *b = i < self->nblocks ? &self->blocks[(first + i) % BLOCKS_MAX] : &self->open_block;
        b->t_up = (int32_t) (b->t_up - dt);
        b->t_down = (int32_t) (b->t_down - dt);
        b->up = (float) (b->up - doff);
        b->down = (float) (b->down + doff);
    }
}

/* An accepted sample joins the filter, the ways and the points, and the
 * estimate follows. */
static void admit(ticksync_t *self, const sample_t *s)
{
    follow_origin(self, s);
    ts_filter_add(&self->filter, s);
    add_ways(self, s);
    add_point(self, s);
    slope_from_ways(self);
    update_level(self);
}

/* How far a sample's two one-way measurements sit above the ways' edges
 * as the model predicts them at its time (below: negative). */
static void edge_residuals(const ticksync_t *self, const sample_t *s, double *r_up, double *r_down)
{
    double f = self->cfg.up_fraction, dt = (double) (s->local - self->edge_local);
    double up = s->offset + f * (double) s->delay, down = (1 - f) * (double) s->delay - s->offset;
    *r_up = up - (self->edge_up + self->edge_slope * dt);
    *r_down = down - (self->edge_down - self->edge_slope * dt);
}

/* The level's expected error: TS_TUNING.expect_k spacings of each way's least
 * measurements, the two ways weighed as up_fraction splits the offset
 * (ticksync_expected_error says why). Needs the edges. */
static double level_error(const ticksync_t *self)
{
    double f = self->cfg.up_fraction;
    return TS_TUNING.expect_k * hypot((1 - f) * self->gap_up, f * self->gap_down);
}

/* drift_error once the drift is known and a source states one, else
 * unknown. */
static double known_drift_error(const ticksync_t *self, double unknown)
{
    double se = self->freq_known ? drift_error(self) : unknown;
    return isfinite(se) ? se : unknown;
}

/* How far below an edge a sample at local must sit to be a server step:
 * the model's own error of the edges there (the level's, and the drift's
 * error over the time since the edges' reading, at freq_z; with the drift
 * unknown, any rate a clock may have), at least dev_floor_us (a
 * measurement's noise), at most server_step_us. */
static double step_limit(const ticksync_t *self, int64_t local)
{
    double se = known_drift_error(self, TS_TUNING.max_freq);
    double model = level_error(self) + TS_TUNING.freq_z * se * fabs((double) (local - self->edge_local));
    return fmin((double) self->cfg.server_step_us, fmax(model, TS_TUNING.dev_floor_us));
}

/* s waits for a second sample: a step of step (its queueing excess), or a
 * shorter route. */
static void hold(ticksync_t *self, const sample_t *s, double step, double excess, bool shorter)
{
    self->suspect = true;
    self->suspect_shorter = shorter;
    self->suspect_sample = *s;
    self->suspect_step = step;
    self->suspect_excess = excess;
}

/* How a sample sits against the ways' edges. */
typedef enum {
    EDGES_HELD,      /* as queueing allows */
    EDGES_STEPPED,   /* below one edge and above the other: the server's time stepped by *step */
    EDGES_SHORTER,   /* its round trip shorter than the two edges put together: a shorter route */
} edges_t;

/* Where s sits against the ways' edges as the model puts them at its time:
 * below one by more than the model's error of them (step_limit), which
 * queueing (it only adds) cannot do, while its round trip is not shorter
 * by as much, is a step (*step: how far the server's time moved, + forward;
 * *excess: the sample's queueing, which *step may be off by); a round trip
 * shorter by more than that is a shorter route. */
static edges_t against_edges(const ticksync_t *self, const sample_t *s, double *step, double *excess)
{
    if (!self->edges)
        return EDGES_HELD;
    double r_up, r_down;
    edge_residuals(self, s, &r_up, &r_down);
    double limit = step_limit(self, s->local);
    if (r_up + r_down < -limit)
        return EDGES_SHORTER;
    if (fmin(r_up, r_down) >= -limit)
        return EDGES_HELD;
    *step = (r_up - r_down) / 2;
    *excess = r_up + r_down;
    return EDGES_STEPPED;
}

/* The server's time stepped by step at local time at: every sample kept is
 * moved with it, so the drift and the filter's knowledge carry over, and
 * the ways from then on take over the level once there are enough. */
static void move_history(ticksync_t *self, double step, int64_t at)
{
    ts_filter_move(&self->filter, step);
    self->origin_offset += step;   /* the points' offsets, up and down - and + step */
    clear_blocks(self);   /* the step's estimate is off by a sample's queueing */
    self->turn_looked = 0;
    self->since = at;
    self->stats.server_steps++;
}

/* How far above the filter's least delay a sample's is rejected as an
 * outlier (chrony's maxdelaydevratio over the filter's spread, at least
 * TS_TUNING.dev_floor_us); none before the filter has 4 samples. */
static double dev_limit(const ticksync_t *self)
{
    return ts_filter_outlier_limit(&self->filter, self->cfg.max_delay_dev_ratio, TS_TUNING.dev_floor_us);
}

/* Whether the model predicted an accepted sample, for the interval
 * (polling.h): neither of its one-way measurements is below its way's edge,
 * as the model puts the edge at the sample's time, by more than the
 * level's expected error (TS_TUNING.expect_k spacings of the ways' least
 * measurements, as ticksync_expected_error has it). Queueing only ever
 * adds, so a measurement below an edge is the model's error, not noise:
 * the edge moved (a changing rate, a step, a new path) where the model
 * did not. */
static void note_predicted(ticksync_t *self, const sample_t *s)
{
    if (!self->edges || ts_poll_bursting(&self->poll))
        return;
    double r_up, r_down;
    edge_residuals(self, s, &r_up, &r_down);
    ts_poll_predicted(&self->poll, -fmin(r_up, r_down) <= level_error(self));
}

ticksync_verdict_t ticksync_sample(ticksync_t *self, int64_t t1, int64_t t2, int64_t t3, int64_t t4)
{
    self->stats.samples++;
    int64_t delay = (t4 - t1) - (t3 - t2);
    if (delay < 0 || t4 < t1) {
        self->stats.rejected_bad++;
        return TICKSYNC_REJECTED_BAD;
    }
    if (delay > self->cfg.max_rtt_us) {
        self->stats.rejected_rtt++;
        return TICKSYNC_REJECTED_RTT;
    }
    sample_t s = { .local = t1 + (t4 - t1) / 2,
                   .offset = (double) t2 - ((double) t1 + self->cfg.up_fraction * (double) delay),
                   .delay = delay };
    if (chosen(self)) {
        /* a new path: the minimum itself has risen, for long enough. A rise
         * is a delay over the filter's minimum by path_change_us, or by less
         * where the filter rejects it as an outlier (dev_limit): else a new
         * path longer by an amount between the two had every sample
         * rejected, and the clock stayed on the old path's for good */
        double rise = fmin((double) self->cfg.path_change_us, dev_limit(self));
        self->rises = (double) (delay - filter_min_delay(self)) > rise ? self->rises + 1 : 0;
        if (self->rises >= self->cfg.path_change_count)
            reset_filter(self, s.local);
    }
    note_excess(self, delay);
    if ((double) (delay - filter_min_delay(self)) > dev_limit(self)) {
        self->stats.rejected_dev++;
        return TICKSYNC_REJECTED_DEV;
    }
    self->stats.accepted++;
    note_predicted(self, &s);
    /* A step of the server's time shows in two samples in a row below a
     * way's edge by about the same amount; the first waits for the second.
     * The step is taken from the less queued of the two. */
    double step = 0, excess = 0;
    edges_t edges = against_edges(self, &s, &step, &excess);
    if (edges == EDGES_STEPPED) {
        /* each sample's reading of the step is off by at most half its
         * queueing over the two edges (its excess): two readings of one
         * step differ by no more than server_step_us and that */
        double agree = (double) self->cfg.server_step_us + (fmax(excess, 0) + fmax(self->suspect_excess, 0)) / 2;
        if (self->suspect && !self->suspect_shorter && fabs(step - self->suspect_step) <= agree) {
            sample_t first = self->suspect_sample;
            bool second_better = excess < self->suspect_excess;
            self->suspect = false;
            move_history(self, second_better ? step : self->suspect_step, first.local);
            admit(self, &first);
            admit(self, &s);
            return TICKSYNC_ACCEPTED;
        }
        if (self->suspect)   /* two different moves: the older was no step */
            admit(self, &self->suspect_sample);
        hold(self, &s, step, excess, false);
        return TICKSYNC_ACCEPTED;
    }
    /* A round trip shorter than the ways' edges allow, which queueing (it
     * only adds) cannot give, in two samples in a row, is a shorter route,
     * and the path starts over as for a longer one. Each way's time changes
     * apart: a way grown longer keeps its edge, which only a lower
     * measurement moves, on the old route for the whole window, and even
     * where both are shorter the ways' lines jump at the change, which the
     * drift's chords would span (draw 199 of seed 12345 took both ways'
     * new edges at once and still lagged the oracle by 5 ms). */
    if (edges == EDGES_SHORTER) {
        if (self->suspect && self->suspect_shorter) {
            sample_t first = self->suspect_sample;
            reset_filter(self, first.local);
            admit(self, &first);
            admit(self, &s);
            return TICKSYNC_ACCEPTED;
        }
        if (self->suspect)
            admit(self, &self->suspect_sample);
        hold(self, &s, 0, 0, true);
        return TICKSYNC_ACCEPTED;
    }
    if (self->suspect) {   /* one sample alone: no step */
        self->suspect = false;
        admit(self, &self->suspect_sample);
    }
    admit(self, &s);
    return TICKSYNC_ACCEPTED;
}

/* ---- what the game asks ---------------------------------------------------- */

static double target_offset(const ticksync_t *self, int64_t local)
{
    if (self->fitted)
        return self->fit_offset + self->freq * (double) (local - self->fit_local);
    const sample_t *c = chosen(self);
    return c ? c->offset + self->freq * (double) (local - c->local) : 0;
}

int64_t ticksync_offset(const ticksync_t *self, int64_t local)
{
    return (int64_t) llround(target_offset(self, local));
}

int64_t ticksync_delay(const ticksync_t *self)
{
    return filter_min_delay(self);
}

/* freq is the offset's slope, d(server - local)/d(local): a local clock
 * running fast makes the offset fall, so the header's "local rate minus the
 * server's" is its negation. */
double ticksync_frequency(const ticksync_t *self)
{
    return -self->freq;
}

/* A gap in the local times the clock is asked at, far longer than usual:
 * the game was paused or in the background, and the path may have changed
 * meanwhile, so a burst of exchanges follows. */
static void notice_resume(ticksync_t *self, int64_t local)
{
    if (ts_poll_asked(&self->poll, local)) {
        self->stats.resumes++;
        ticksync_resync(self);
    }
}

int64_t ticksync_now(ticksync_t *self, int64_t local)
{
    notice_resume(self, local);
    if (!chosen(self))
        return 0;
    double target = target_offset(self, local);
    if (!self->shown) {
        self->shown = true;
        self->shown_offset = target;
        self->shown_local = local;
    } else if (local > self->shown_local) {
        double diff = target - self->shown_offset;
        double most = self->cfg.max_slew * (double) (local - self->shown_local);
        if (diff > (double) self->cfg.step_us) {
            self->shown_offset = target;
            self->stats.steps++;
        } else {
            self->shown_offset += diff > most ? most : diff < -most ? -most : diff;
        }
        self->shown_local = local;
    }
    int64_t now = local + (int64_t) llround(self->shown_offset);
    if (now < self->last_now)
        now = self->last_now;   /* a caller's local clock that went back */
    self->last_now = now;
    return now;
}

int64_t ticksync_message_age(ticksync_t *self, int64_t server_time, int64_t local)
{
    return ticksync_now(self, local) - server_time;
}

int64_t ticksync_error_bound(const ticksync_t *self, int64_t local)
{
    const sample_t *c = chosen(self);
    if (!c)
        return INT64_MAX;
    double up = self->cfg.up_fraction > 0.5 ? self->cfg.up_fraction : 1 - self->cfg.up_fraction;
    double age = (double) (local > c->local ? local - c->local : 0);
    double carried = c->offset + self->freq * (double) (local - c->local);   /* the chosen sample, carried */
    double shown = self->shown ? self->shown_offset : target_offset(self, local);
    double suspect = self->suspect ? fabs(self->suspect_step) : 0;   /* a server step not yet confirmed */
    double phi = self->freq_known ? TS_TUNING.phi_known : TS_TUNING.phi_unknown;
    return (int64_t) ceil(up * (double) c->delay + age * phi + fabs(shown - carried) + suspect);
}

/* From what the estimator knows (and never more than the bound: the
 * error always lies within the bound, so where the estimate below is the
 * wider the bound is the tighter true statement, at full coverage):
 *   - the level is off by the least queueing each way met, about the
 *     spacing of its least measurements (an exponential's bottom is under
 *     three of them 95 % of the time; TS_TUNING.expect_k allows for two ways and a
 *     spacing read off five);
 *   - the drift's error (drift_error) tilts it over the minima's age and
 *     the time since;
 *   - a drift that changes bends the edges, and the kept window's line
 *     misses the bend by bend_us;
 *   - the shown time may still be slewing toward the estimate, or a server
 *     step not be confirmed yet.
 * Before each way has its edge, the bound. */
int64_t ticksync_expected_error(const ticksync_t *self, int64_t local)
{
    if (!chosen(self) || !self->edges)
        return ticksync_error_bound(self, local);
    double level = level_error(self);
    double se = known_drift_error(self, TS_TUNING.phi_unknown);
    double age = (double) self->edge_span / TS_TUNING.expect_age + fabs((double) (local - self->edge_local));
    double slewing = self->shown ? fabs(target_offset(self, local) - self->shown_offset) : 0;
    double suspect = self->suspect ? fabs(self->suspect_step) : 0;
    double expected = ceil(level + TS_TUNING.freq_z * se * age + TS_TUNING.bend_k * self->bend_us + slewing + suspect);
    int64_t bound = ticksync_error_bound(self, local);
    return expected < (double) bound ? (int64_t) expected : bound;
}

bool ticksync_synced(const ticksync_t *self)
{
    return self->filter.n >= self->cfg.synced_samples;
}

bool ticksync_needs_reliable(const ticksync_t *self)
{
    return !ticksync_synced(self);
}

void ticksync_sent(ticksync_t *self, int64_t local)
{
    ts_poll_sent(&self->poll, local);
}

int64_t ticksync_next_sync(const ticksync_t *self)
{
    return ts_poll_next(&self->poll, ticksync_synced(self));
}

void ticksync_stats(const ticksync_t *self, ticksync_stats_t *out)
{
    *out = self->stats;
}

int64_t ticksync_jitter(const ticksync_t *self)
{
    return (int64_t) llround(self->jitter.value);
}

void ticksync_resync(ticksync_t *self)
{
    ts_poll_burst(&self->poll);
}

void ticksync_resume(ticksync_t *self)
{
    self->stats.resumes++;
    ts_poll_resumed(&self->poll);
    ticksync_resync(self);
}

ticksync_timeline_t *ticksync_timeline_of(ticksync_t *self)
{
    return &self->timeline;
}

double ticksync_up_share(const ticksync_t *self)
{
    return self->cfg.up_fraction;
}
