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
 * The stages (docs/DESIGN.md, "The estimator"): samples.h keeps the
 * filter, rings.h what the drift and the level read, drift.h the drift and
 * its one error, level.h the level, the ways' edges and where a sample
 * sits against them, step.h a server step as the samples tell it, path.h
 * a longer route, fit.h the numerics on arrays, polling.h when to ask
 * next. This file admits samples, acts on a server step and a new path,
 * and slews what the game sees.
 *
 * What the game sees is slewed toward the estimate at max_slew, so it never
 * runs backwards, and stepped only forward and only past step_us. A
 * sustained rise of the delay over the filter's minimum is a new path:
 * filter, points and ways start over with a burst, and the drift carries
 * over (a new path does not change the clock's rate), weighed against the
 * new path's by their errors, the carried one growing stale. */
#include <math.h>
#include <stdlib.h>
#include <time.h>
#ifdef _WIN32
#include <windows.h>
#endif

#include "drift.h"
#include "jitter.h"
#include "level.h"
#include "path.h"
#include "polling.h"
#include "rings.h"
#include "samples.h"
#include "step.h"
#include "ticksync.h"
#include "timeline.h"
#include "tuning.h"

typedef ts_sample_t sample_t;

struct ticksync_t {
    ticksync_config_t cfg;
    ts_filter_t filter;                     /* the last accepted samples */
    ts_rings_t rings;                       /* points, ways and blocks: what the drift and level read */
    ts_drift_t drift;
    ts_level_t level;                       /* the level (else the chosen sample) and the ways' edges */
    ts_path_t path;                         /* the rise rule's run */
    ts_step_t step;                         /* a sample held for a second, the last server step */
    ts_poll_t poll;                         /* when to ask next */
    bool     shown;                         /* the slewed offset the game sees */
    int64_t  shown_local;
    double   shown_offset;
    int64_t  last_now;
    int64_t  newest;                        /* the newest exchange's local time (ticksync_sample) */
    int64_t  told_after;                    /* ticksync_path_changed: the last request sent before it, */
    bool     told;                          /* ... and whether the new path's first reply is still to come */
    bool     held_over;                     /* the old path's estimate, while the new path has one sample: */
    double   held_offset;                   /* ... its offset at held_local */
    int64_t  held_local;
    ts_jitter_t jitter;                     /* round trips' excess over the filter's least */
    double   last_up;                       /* the newest exchange's way up over its edge, */
    double   queue_up;                      /* ... and the least of the newest two's, in a run of rises */
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
    ts_rings_init(&self->rings, c.drift_points);
    ts_drift_init(&self->drift, c.drift_min_span_us);
    ts_level_init(&self->level, c.up_fraction);
    ts_step_clear(&self->step);
    self->newest = INT64_MIN / 2;
    self->told_after = INT64_MIN;
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

/* ---- admitting samples ------------------------------------------------------ */

/* Steps of the server's time closer than this are one to the clock. */
static double server_step(const ticksync_t *self)
{
    return (double) self->cfg.server_step_us;
}

static const sample_t *chosen(const ticksync_t *self)
{
    return ts_filter_chosen(&self->filter);
}

static int64_t filter_min_delay(const ticksync_t *self)
{
    return ts_filter_min_delay(&self->filter);
}

static double target_offset(const ticksync_t *self, int64_t local);

/* A new path, seen at local: the drift is carried over, the rest starts
 * over. While the new path has one sample, the game is shown what the
 * old path's samples put the offset at (along the drift): where a run of
 * rises or the filter's least risen told the new path, that sample was
 * picked for its round trip and is often queued; taken alone, it moved
 * the shown time by half its queueing until the burst's next sample,
 * which nothing picked, put it back (docs/DESIGN.md, "A new route"). */
static void reset_filter(ticksync_t *self, int64_t local)
{
    if (chosen(self)) {
        self->held_over = true;
        self->held_offset = target_offset(self, local);
        self->held_local = local;
    }
    ts_drift_new_path(&self->drift, local);
    ts_filter_clear(&self->filter);
    ts_rings_clear(&self->rings);
    ts_level_clear(&self->level);
    ts_step_clear(&self->step);
    ts_path_clear(&self->path);
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

/* How much the way up queues now, for the timeline's lead: where two
 * exchanges in a row met a queue, the less of their ways up over its
 * edge. A game's inputs meet the same queue; the lead, which the
 * filter's least and the jitter set, does not see it until the path rule
 * makes it a new path or the window's 99th percentile reaches it. Two in
 * a row: the round trips run over the filter's least (two rises, the path
 * rule's run: a queue, or a route not yet a new path), or both ways up
 * sit over the lead's margin (twice the jitter), a queue too short to be
 * a rise (under the outlier limit, 5 ms at the least) that inputs still
 * meet late. One alone is a spike, which the input's next copy beats
 * (timeline.c). Every exchange the jitter counts counts here, an outlier
 * too. Until 2026-12-04 only rises were read: over drawn traces at seeds
 * 1309-1314 the draws over 1 % late in 4 packets went 192 -> 185 of
 * 6,000, and the server-step trace's inputs in time 99.77 -> 99.90 % (the
 * step's first exchanges sit over an edge). */
static void note_queue(ticksync_t *self, const sample_t *s)
{
    double r_up = 0, r_down;
    if (self->level.edges)
        ts_level_residuals(&self->level, s, &r_up, &r_down);
    double up = fmax(r_up, 0), over = 2 * self->jitter.value;
    self->queue_up = (self->path.rises >= 2 || (up > over && self->last_up > over)) ? fmin(up, self->last_up) : 0;
    self->last_up = up;
}

/* A sample near the filter's minimum delay (within the filter's spread)
 * is as good as the minimum: it becomes a point of the line, so the line
 * averages many of them and follows drift between new minima. */
static void add_point(ticksync_t *self, const sample_t *s)
{
    /* a filter of one or two samples may hold nothing but a spike */
    int trusted = self->cfg.synced_samples < self->cfg.filter_size ? self->cfg.synced_samples : self->cfg.filter_size;
    double spread = ts_filter_spread(&self->filter);
    if (self->filter.n < trusted
        || (double) (s->delay - filter_min_delay(self)) > fmax(spread, TS_TUNING.dev_floor_us))
        return;
    ts_rings_add_point(&self->rings, s);
    ts_drift_from_points(&self->drift, &self->rings, self->step.since);
}

/* How far over the filter's least delay a sample is an outlier, rejected
 * for its round trip: max_delay_dev_ratio of the filter's spread
 * (chrony's maxdelaydevratio), of at least TS_TUNING.dev_floor_us; none
 * before the filter has TS_TUNING.spread_min samples. */
static double outlier_limit(const ticksync_t *self)
{
    return ts_filter_outlier_limit(&self->filter, self->cfg.max_delay_dev_ratio, TS_TUNING.dev_floor_us);
}

static bool outlier(const ticksync_t *self, const sample_t *s)
{
    return (double) (s->delay - filter_min_delay(self)) > outlier_limit(self);
}

/* An accepted sample joins the filter, the ways (a block of the long
 * history closing, once every TS_RINGS_BLOCK) and the points, and the
 * drift and the level follow; an outlier, placed for the tests against
 * the edges alone (below_an_edge), does not. Letting it in widened the
 * filter's spread, so queued samples joined the points, whose line gives
 * the drift for 20 s after a step (a steady drift strayed 9 ppm). */
static void admit(ticksync_t *self, const sample_t *s)
{
    if (outlier(self, s))
        return;
    ts_drift_t *d = &self->drift;
    ts_rings_follow(&self->rings, s->local, s->offset);
    ts_filter_add(&self->filter, s);
    if (ts_rings_add_ways(&self->rings, s, self->cfg.up_fraction, d->known ? d->freq : 0))
        ts_drift_from_blocks(d, &self->rings);
    add_point(self, s);
    ts_drift_from_ways(d, &self->rings, self->step.since);
    ts_level_update(&self->level, &self->rings, d, self->step.since);
}

/* s joins the samples that read the last server step (step.h): where the
 * reading changed, the older history moves with it, and so does the
 * points' line across the step, which reads the step's error as a rate
 * until the ways since it give the drift. */
static bool read_step(ticksync_t *self, const sample_t *s)
{
    double move = 0;
    if (!ts_step_read(&self->step, s, (double) self->cfg.drift_min_span_us, server_step(self), &move))
        return false;
    ts_filter_move_before(&self->filter, move, self->step.since);
    ts_rings_move_before(&self->rings, move, self->step.since);
    return true;
}

/* s waits for a second sample: a step of step (its queueing excess), or a
 * shorter route; the second is asked for at once. */
static void hold(ticksync_t *self, const sample_t *s, double step, double excess, bool shorter)
{
    double limit = ts_level_step_limit(&self->level, &self->drift, s->local, server_step(self));
    ts_step_hold(&self->step, s, step, excess, shorter, outlier(self, s), limit);
    ts_poll_soon(&self->poll);
}

/* The server's time stepped at local time at, as first read by the
 * samples a and b (as step_a and step_b, over their queueing excess_a and
 * excess_b): what was kept from before then moves with it, so the drift
 * and the filter's knowledge carry over, and the ways from then on take
 * over the level once there are enough. */
static void move_history(ticksync_t *self, int64_t at, const sample_t *a, double step_a, double excess_a,
                         const sample_t *b, double step_b, double excess_b)
{
    ts_rings_clear_blocks(&self->rings);   /* the step's estimate is off by a sample's queueing */
    ts_drift_stepped(&self->drift, at);
    ts_step_start(&self->step, at, &self->level);
    read_step(self, a);
    read_step(self, b);
    ts_step_settle(&self->step, server_step(self), step_a, excess_a, step_b, excess_b);
    self->stats.server_steps++;
    ts_level_update(&self->level, &self->rings, &self->drift, self->step.since);   /* (outliers are not admitted) */
}

/* Whether the model predicted an accepted sample, for the interval
 * (polling.h): the rate is steady, as the long history says (it gives the
 * drift only where no bend and no curve, the runs test, shows over some
 * 256 samples), and neither of the sample's one-way measurements is below
 * its way's edge, as the model puts the edge at the sample's time, by
 * more than the level's allowance (ts_level_error). Queueing only ever
 * adds, so a measurement below an edge is the model's error, not noise:
 * the edge moved (a changing rate, a step, a new path) where the model
 * did not. A rate that bends shows in single samples only once the edges
 * have moved by more than that, and with half the samples the window sees
 * the bend half as soon: the interval waits for the long history. */
static void note_predicted(ticksync_t *self, const sample_t *s)
{
    if (!self->level.edges || ts_poll_bursting(&self->poll))
        return;
    double r_up, r_down;
    ts_level_residuals(&self->level, s, &r_up, &r_down);
    ts_poll_predicted(&self->poll, self->drift.long_known && -fmin(r_up, r_down) <= ts_level_error(&self->level));
}

/* Whether s sits below a way's edge by more than the step limit. Queueing
 * only adds, so that is a server step's sign (or a route's, one way
 * shorter) whatever the round trip: an outlier below an edge is still
 * tested against the edges (place), but never admitted. In a failover
 * the route grows longer as the server steps, every round trip is an
 * outlier, and the step was otherwise seen only once the rises made a
 * new path: 12.6 s after a -9.4 ms step under bimodal queueing, where
 * 10 rises were needed (the failover draw 30 of seed 4242; 3.7 s now). */
static bool below_an_edge(const ticksync_t *self, const sample_t *s)
{
    double step = 0, excess = 0;
    return ts_level_against(&self->level, &self->drift, s, server_step(self), &step, &excess)
           == TS_EDGES_STEPPED;
}

/* An accepted sample, against the ways' edges: admitted, held for a
 * second one (a step, a shorter route), taken with the one held, or
 * dropped while a clear step waits. */
static void place(ticksync_t *self, const sample_t *s)
{
    /* edges that straddle a step no test saw, or first ways that tell
     * one: the path starts over from the step's side, which this sample
     * is on */
    if (ts_level_straddles(&self->level, server_step(self))
        || ts_step_in_first_ways(&self->step, &self->rings, &self->level, &self->drift, self->cfg.up_fraction,
                                 server_step(self))) {
        reset_filter(self, s->local);
        admit(self, s);
        return;
    }
    /* below an edge the step moved, a sample is first that step's error */
    if (read_step(self, s))
        ts_level_update(&self->level, &self->rings, &self->drift, self->step.since);
    double step = 0, excess = 0;
    ts_edges_t edges = ts_level_against(&self->level, &self->drift, s, server_step(self), &step, &excess);
    /* A round trip shorter than the ways' edges allow, which queueing (it
     * only adds) cannot give, is a new route: a server step or a changing
     * rate moves the two ways in opposite directions and leaves the round
     * trip as it was. The sample before or after it below an edge too,
     * shorter or not, confirms it: where one way shortened and the other
     * queued more than the route saved, a sample's round trip is not
     * shorter, but its shortened way is still below the old edge. The path
     * starts over as for a longer one. Each way's time changes apart: a
     * way grown longer keeps its edge, which only a lower measurement
     * moves, on the old route for the whole window, and even where both
     * are shorter the ways' lines jump at the change, which the drift's
     * chords would span (draw 199 of seed 12345 took both ways' new edges
     * at once and still lagged the oracle by 5 ms). */
    ts_step_t *st = &self->step;
    if (edges != TS_EDGES_HELD && st->held && (st->held_shorter || edges == TS_EDGES_SHORTER)) {
        sample_t first = st->held_sample;
        reset_filter(self, first.local);
        admit(self, &first);
        admit(self, s);
        return;
    }
    /* A step of the server's time shows in two samples in a row below a
     * way's edge by about the same amount; the first waits for the second.
     * The step is read from the two, and again from each sample after. */
    if (edges == TS_EDGES_STEPPED) {
        double agree = ts_step_agreement(server_step(self), excess, st->held_excess);
        if (st->held && st->held_outlier == outlier(self, s) && fabs(step - st->held_step) <= agree) {
            sample_t first = st->held_sample;
            st->held = false;
            move_history(self, first.local, &first, st->held_step, st->held_excess, s, step, excess);
            admit(self, &first);
            admit(self, s);
            return;
        }
        if (st->held)   /* two different moves: the older was no step */
            admit(self, &st->held_sample);
        hold(self, s, step, excess, false);
        return;
    }
    if (edges == TS_EDGES_SHORTER) {
        hold(self, s, 0, 0, true);
        return;
    }
    if (st->held && ts_step_still(st, &self->level, s, server_step(self))) {
        st->held_waits++;   /* dropped: it tells neither way */
        ts_poll_soon(&self->poll);
        return;
    }
    if (st->held) {   /* one sample alone: no step */
        st->held = false;
        admit(self, &st->held_sample);
    }
    admit(self, s);
}

/* Whether any of an exchange's times is beyond ±2^60 µs, some 36,000
 * years from any clock's zero, where the differences the exchange gives
 * would not fit in 64 bits. The server's times come off the wire: a
 * server that sends any gets its exchange rejected, not the clock moved. */
static bool beyond_any_clock(int64_t t1, int64_t t2, int64_t t3, int64_t t4)
{
    const int64_t limit = (int64_t) 1 << 60;   /* (not "far": windows.h defines it away) */
    const int64_t t[4] = { t1, t2, t3, t4 };
    for (int i = 0; i < 4; i++)
        if (t[i] <= -limit || t[i] >= limit)
            return true;
    return false;
}

/* An exchange no clock could have made is rejected as bad: a time beyond
 * any clock's, a negative round trip or a reply before its request, or a
 * local time further behind the newest exchange's than a round trip the
 * estimator accepts, which no path reorders (a server that echoes a t1 it
 * was not sent does; the rings keep a time as 32-bit µs from an origin
 * that follows the newest). */
ticksync_verdict_t ticksync_sample(ticksync_t *self, int64_t t1, int64_t t2, int64_t t3, int64_t t4)
{
    self->stats.samples++;
    bool beyond = beyond_any_clock(t1, t2, t3, t4);   /* else every difference below fits */
    int64_t delay = beyond ? 0 : (t4 - t1) - (t3 - t2), local = beyond ? 0 : t1 + (t4 - t1) / 2;
    if (beyond || delay < 0 || t4 < t1 || local < self->newest - self->cfg.max_rtt_us) {
        self->stats.rejected_bad++;
        return TICKSYNC_REJECTED_BAD;
    }
    if (delay > self->cfg.max_rtt_us) {
        self->stats.rejected_rtt++;
        return TICKSYNC_REJECTED_RTT;
    }
    sample_t s = { .local = local,
                   .offset = (double) t2 - ((double) t1 + self->cfg.up_fraction * (double) delay),
                   .delay = delay };
    if (s.local > self->newest)
        self->newest = s.local;
    if (self->told && t1 > self->told_after) {   /* the first reply of the path the game told of */
        self->told = false;
        if (chosen(self))
            reset_filter(self, s.local);
    } else if (!self->told && t1 <= self->told_after) {   /* the old route's, after the new one's first */
        self->stats.rejected_dev++;
        return TICKSYNC_REJECTED_DEV;
    }
    if (chosen(self) && ts_path_rise(&self->path, &self->filter, &self->jitter, delay, (double) self->cfg.path_change_us,
                                     outlier_limit(self), self->cfg.path_change_count))
        reset_filter(self, s.local);
    note_excess(self, delay);
    note_queue(self, &s);
    if (outlier(self, &s)) {
        self->stats.rejected_dev++;
        /* for the tests against the edges alone (admit leaves it out), and
         * paired only with another outlier: a spike's excess makes the
         * readings' agreement hundreds of ms wide, and a sample held in
         * range was taken by one for a step (31337 --wide, draw 123) */
        if (below_an_edge(self, &s) && (!self->step.held || self->step.held_outlier))
            place(self, &s);
        return TICKSYNC_REJECTED_DEV;
    }
    self->stats.accepted++;
    note_predicted(self, &s);
    int64_t least = filter_min_delay(self);
    place(self, &s);
    if (filter_min_delay(self) > least
        && ts_path_filter_risen(&self->filter, &self->rings, &self->level, &self->drift, server_step(self))) {
        reset_filter(self, s.local);
        admit(self, &s);
    }
    return TICKSYNC_ACCEPTED;
}

/* ---- what the game asks ---------------------------------------------------- */

static double target_offset(const ticksync_t *self, int64_t local)
{
    if (self->held_over && self->filter.n < 2)   /* a new path's first sample alone (reset_filter) */
        return self->held_offset + self->drift.freq * (double) (local - self->held_local);
    if (self->level.fitted)
        return self->level.fit_offset + self->drift.freq * (double) (local - self->level.fit_local);
    const sample_t *c = chosen(self);
    return c ? c->offset + self->drift.freq * (double) (local - c->local) : 0;
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
    return -self->drift.freq;
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
    int64_t now = ticksync_now(self, local);   /* server_time is off the wire: any int64 */
    if (server_time < 0 && now > INT64_MAX + server_time)
        return INT64_MAX;
    if (server_time > 0 && now < INT64_MIN + server_time)
        return INT64_MIN;
    return now - server_time;
}

/* A server step held for a second sample, not yet confirmed: the shown
 * time may be off by it (0: none held; a held shorter route reads none). */
static double unconfirmed_step(const ticksync_t *self)
{
    return self->step.held ? fabs(self->step.held_step) : 0;
}

int64_t ticksync_error_bound(const ticksync_t *self, int64_t local)
{
    const sample_t *c = chosen(self);
    if (!c)
        return INT64_MAX;
    double up = self->cfg.up_fraction > 0.5 ? self->cfg.up_fraction : 1 - self->cfg.up_fraction;
    double age = (double) (local > c->local ? local - c->local : 0);
    double carried = c->offset + self->drift.freq * (double) (local - c->local);   /* the chosen sample, carried */
    double shown = self->shown ? self->shown_offset : target_offset(self, local);
    double suspect = unconfirmed_step(self);
    double phi = self->drift.known ? TS_TUNING.phi_known : TS_TUNING.phi_unknown;
    return (int64_t) ceil(up * (double) c->delay + age * phi + fabs(shown - carried) + suspect);
}

/* From what the estimator knows (and never more than the bound: the
 * error always lies within the bound, so where the estimate below is the
 * wider the bound is the tighter true statement, at full coverage):
 *   - the level is off by the least queueing each way met, an
 *     exponential's worth each, of the spacing of its least measurements
 *     (ts_level_error95: their difference's 95 % point);
 *   - the drift's error (ts_drift_error) tilts it over the minima's age and
 *     the time since;
 *   - a drift that changes bends the edges, and the kept window's line
 *     misses the bend by bend_us;
 *   - the shown time may still be slewing toward the estimate, or a server
 *     step not be confirmed yet.
 * The level's and the drift's errors come from different samples' noise
 * (the ways' least measurements; the chords' slopes) and are independent,
 * so their 95 % points add in quadrature; the bend, the slewing and a
 * suspect step are offsets of a known size and add as they are.
 * Before each way has its edge, the bound. */
int64_t ticksync_expected_error(const ticksync_t *self, int64_t local)
{
    if (!chosen(self) || !self->level.edges)
        return ticksync_error_bound(self, local);
    double level = ts_level_error95(&self->level);
    double se = ts_drift_error_or(&self->drift, TS_TUNING.phi_unknown);
    const ts_level_t *l = &self->level;
    double age = (double) l->edge_span / TS_TUNING.expect_age + fabs((double) (local - l->edge_local));
    double slewing = self->shown ? fabs(target_offset(self, local) - self->shown_offset) : 0;
    double suspect = unconfirmed_step(self);
    double bend = TS_TUNING.bend_k * self->drift.bend_us;
    double tilt = TS_TUNING.freq_z * se * age;
    double expected = ceil(hypot(level, tilt) + bend + slewing + suspect);
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

/* While a sample waits for a second (a step, a shorter route), the burst's
 * pace: one lost exchange would otherwise put the second an interval off,
 * and a burst of losses several. */
int64_t ticksync_next_sync(const ticksync_t *self)
{
    bool waits = self->step.held
                 || ts_step_first_ways_doubtful(&self->step, &self->rings, &self->level, server_step(self));
    return ts_poll_next(&self->poll, ticksync_synced(self) && !waits);
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

/* The game was told by its platform that the network changed (another
 * interface, another access point): a new route, which the samples alone
 * tell only once enough of them show it (docs/DESIGN.md, "A new route").
 * Requests sent from now on take the new route: the first reply to one
 * starts the new path, and a reply to an earlier one arriving after that
 * is the old route's and is not read. The game's word is taken as it is:
 * read against the old edges first, a single reply's evidence is a
 * changing rate's or a queue's as often as a route's (docs/DESIGN.md,
 * "A new route the game tells of"). */
void ticksync_path_changed(ticksync_t *self)
{
    self->told_after = self->poll.sent_any ? self->poll.last_sent : INT64_MIN;
    self->told = true;
    ticksync_resync(self);
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

double ticksync_queue_up(const ticksync_t *self)
{
    return self->queue_up;
}

bool ticksync_spiky(const ticksync_t *self)
{
    return self->jitter.spiky;
}

double ticksync_up_share(const ticksync_t *self)
{
    return self->cfg.up_fraction;
}
