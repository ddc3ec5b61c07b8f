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
 * sits against them, fit.h the numerics on arrays, polling.h when to ask
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
#include "polling.h"
#include "rings.h"
#include "samples.h"
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
    int      rises;                         /* samples in a row over the path-change threshold, */
    int      rises_needed;                  /* ... how many make a new path, */
    double   rise;                          /* ... and the threshold, as they were at the first, */
    int64_t  rise_from;                     /* ... over the filter's least delay as it was then, */
    double   run_least;                     /* ... and the run's least excess over it */
    bool     suspect;                       /* a sample below a way's edge waits for a second one */
    bool     suspect_shorter;               /* ... below both, as a shorter route would put it (else a step) */
    bool     suspect_outlier;               /* ... an outlier (below_an_edge), which only another confirms */
    sample_t suspect_sample;
    double   suspect_step, suspect_excess, suspect_limit;
    int      suspect_waits;                 /* samples dropped while it waits (still_a_step) */
    int64_t  since;                         /* the last server step's local time: older ways are
                                               moved by it, and left out once newer ones suffice */
    ts_level_t at_step;                     /* the edges before the step, which the samples */
    double   least_up, least_down;          /* ... since meet at these least (read_step), */
    double   stepped;                       /* ... and the step they read, which the older history moved by */
    double   step_read, step_agree;         /* the two samples' reading, and how far a reading again may move */
    ts_poll_t poll;                         /* when to ask next */
    bool     shown;                         /* the slewed offset the game sees */
    int64_t  shown_local;
    double   shown_offset;
    int64_t  last_now;
    int64_t  newest;                        /* the newest exchange's local time (ticksync_sample) */
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
    ts_rings_init(&self->rings, c.drift_points);
    ts_drift_init(&self->drift, c.drift_min_span_us);
    ts_level_init(&self->level, c.up_fraction);
    self->since = INT64_MIN;
    self->newest = INT64_MIN / 2;
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

/* A new path, seen at local: the drift is carried over, the rest starts over. */
static void reset_filter(ticksync_t *self, int64_t local)
{
    ts_drift_new_path(&self->drift, local);
    ts_filter_clear(&self->filter);
    ts_rings_clear(&self->rings);
    ts_level_clear(&self->level);
    self->suspect = false;
    self->since = INT64_MIN;
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
    ts_rings_add_point(&self->rings, s);
    ts_drift_from_points(&self->drift, &self->rings, self->since);
}

/* A server step, read from the samples since it: queueing only adds, so
 * against the edges before the step, each way's least residual is the
 * step plus the least queueing up met (least_up) and the least queueing
 * down met less the step (least_down). The step lies between the lowered
 * way's reading and the raised way's; half-way between, off by half the
 * difference of the two least queueings, is the estimate, each way's
 * least of more samples the nearer its edge. It is taken at most at twice
 * the lowered way's reading, the least step the samples prove: so taken,
 * it never leaves the clock further off than not taking it. Two samples
 * below an edge are selected for little queueing on the lowered way, not
 * on the raised one, whose queueing the half-way point takes as half of
 * the step: a +1.7 ms step under Pareto queueing was read as +10.8 ms,
 * 9 ms off where not taking it was 1.7 (draw 11 of seed 12345). */
static double step_estimate(double least_up, double least_down)
{
    double half_way = (least_up - least_down) / 2;
    double proven = half_way > 0 ? -least_down : -least_up;
    return copysign(fmin(fabs(half_way), 2 * fmax(proven, 0)), half_way);
}

/* s joins the samples that read the step, within drift_min_span of it;
 * true when the step it reads changed, and the older history (and the
 * points' line across the step, which reads the step's error as a rate
 * until the ways since it give the drift) moved with it. A sample that
 * would move the reading further from the two samples' than they agreed
 * within (each off by at most half its queueing) reads something else: a
 * second step, or a new route, which the tests against the edges tell.
 * Taken as this one's error, a +171 ms step 8 s after a -1 ms one moved
 * the history before the first by half of it (the failover draw 17 of
 * seed 4242), and the points' line read that as -1,000 ppm. */
static bool read_step(ticksync_t *self, const sample_t *s)
{
    if (self->since == INT64_MIN || (double) (s->local - self->since) >= (double) self->cfg.drift_min_span_us)
        return false;
    double r_up, r_down;
    ts_level_residuals(&self->at_step, s, &r_up, &r_down);
    double least_up = fmin(self->least_up, r_up), least_down = fmin(self->least_down, r_down);
    double step = step_estimate(least_up, least_down);
    if (fabs(step - self->step_read) > self->step_agree)
        return false;
    self->least_up = least_up;
    self->least_down = least_down;
    if (step == self->stepped)
        return false;
    ts_filter_move_before(&self->filter, step - self->stepped, self->since);
    ts_rings_move_before(&self->rings, step - self->stepped, self->since);
    self->stepped = step;
    return true;
}

/* How far above the filter's least delay a sample's is rejected as an
 * outlier (chrony's maxdelaydevratio over the filter's spread, at least
 * TS_TUNING.dev_floor_us); none before the filter has 4 samples. */
static double dev_limit(const ticksync_t *self)
{
    return ts_filter_outlier_limit(&self->filter, self->cfg.max_delay_dev_ratio, TS_TUNING.dev_floor_us);
}

/* Whether s is an outlier: rejected for its round trip. */
static bool outlier(const ticksync_t *self, const sample_t *s)
{
    return (double) (s->delay - filter_min_delay(self)) > dev_limit(self);
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
    ts_drift_from_ways(d, &self->rings, self->since);
    ts_level_update(&self->level, &self->rings, d, self->since);
}

/* Whether the path has grown longer by less than a rise (count_rise).
 * A route longer by about the outlier limit has one of its round trips
 * let in under it; the filter's spread grows with it, and the limit with
 * that, so no run of rises follows: the filter turns over to the new
 * route, and the longer way keeps its old edge until the window forgets
 * it (the --wide draw 186 of seed 2718: 12.8 ms longer, 49.5 s late).
 * A round trip moves with neither the rate nor a server step, so on one
 * path the ways' round trips are alike in law (exchangeable): where the
 * filter's least sits above k of the N ways (the filter's n among them),
 * the chance that its n all rank above those k is C(N - k, n) / C(N, n).
 * At most TS_TUNING.rise_odds, with the least also above the edges' ways'
 * least by more than the model's error of the edges (the step limit, as
 * a shorter route is told), it is a new path. Read as the filter's least
 * rises (its least sample left), where the chance is least: ways that
 * leave the ring, or the filter for those before it, only raise it. */
static bool filter_risen(const ticksync_t *self)
{
    const ts_rings_t *r = &self->rings;
    int n = self->filter.n, before = r->nways - n;
    if (!self->level.edges || n < self->filter.size || before < 1)
        return false;
    double least_trip = (double) filter_min_delay(self);
    double limit = ts_level_step_limit(&self->level, &self->drift, chosen(self)->local, (double) self->cfg.server_step_us);
    if (least_trip - self->level.trip_least <= limit)
        return false;
    int below = 0;
    for (int i = 0, at = ts_rings_at(r->ways_next, r->nways, TS_RINGS_WAYS, 0); i < before; i++) {
        const ts_way_t *w = &r->ways[at];
        below += (double) w->up + (double) w->down < least_trip;
        at = at + 1 < TS_RINGS_WAYS ? at + 1 : 0;   /* (no division a way) */
    }
    double chance = 1;
    for (int i = 0; i < n; i++)
        chance *= (double) (r->nways - below - i) / (r->nways - i);
    return chance <= TS_TUNING.rise_odds;
}

/* How far two readings of one server step may differ: each is off by at
 * most half its queueing over the two edges (its excess), and steps
 * closer than server_step_us are one to the clock. */
static double agreement(const ticksync_t *self, double excess_a, double excess_b)
{
    return (double) self->cfg.server_step_us + (fmax(excess_a, 0) + fmax(excess_b, 0)) / 2;
}

/* Whether a step read as step, off by at most half its queueing excess,
 * is clear of what the model gives: the least it can be over clear_k
 * step limits (still_a_step, first_ways_stepped). */
static bool clear_step(double step, double excess, double limit)
{
    return fabs(step) - fmax(excess, 0) / 2 > TS_TUNING.clear_k * limit;
}

/* s waits for a second sample: a step of step (its queueing excess), or a
 * shorter route. */
static void hold(ticksync_t *self, const sample_t *s, double step, double excess, bool shorter)
{
    self->suspect = true;
    self->suspect_shorter = shorter;
    self->suspect_outlier = outlier(self, s);
    self->suspect_sample = *s;
    self->suspect_step = step;
    self->suspect_excess = excess;
    self->suspect_limit = ts_level_step_limit(&self->level, &self->drift, s->local, (double) self->cfg.server_step_us);
    self->suspect_waits = 0;
    ts_poll_soon(&self->poll);
}

/* The server's time stepped at local time at, as first read by the
 * samples a and b, which agree within agree: what was kept from before
 * then moves with it, so the drift and the filter's knowledge carry over,
 * and the ways from then on take over the level once there are enough. */
static void move_history(ticksync_t *self, int64_t at, const sample_t *a, const sample_t *b, double agree)
{
    ts_rings_clear_blocks(&self->rings);   /* the step's estimate is off by a sample's queueing */
    ts_drift_stepped(&self->drift, at);
    self->since = at;
    self->at_step = self->level;
    self->least_up = self->least_down = INFINITY;
    self->stepped = 0;
    self->step_agree = INFINITY;
    read_step(self, a);
    read_step(self, b);
    self->step_read = self->stepped;
    self->step_agree = agree;
    self->stats.server_steps++;
    ts_level_update(&self->level, &self->rings, &self->drift, self->since);   /* (outliers are not admitted) */
}

/* How many samples in a row over rise make a new path, where the least
 * of them is least over the filter's least: path_change_count, or more
 * where the path's own queueing passes least so often that so many in a
 * row would come by chance: the least k with p^k at most
 * TS_TUNING.rise_odds, p the share of the round trips over least (the
 * chance that k of them all pass the least the run met). A way up
 * queueing 15 ms on average passes 20 ms a quarter of the time, six in a
 * row every hour or so; it takes 11. A route 36 ms longer under bimodal
 * queueing whose second mode is 16 ms, a rise of 5.6 ms passed 45 % of
 * the time, took 17 at that rise and takes 6 at the run's least (the
 * failover draw 115 of seed 4242). */
static int rises_needed(const ticksync_t *self, double least)
{
    double p = ts_jitter_share_over(&self->jitter, least), chance = 1;
    int k = 0;
    while (k < self->cfg.path_change_count || (chance > TS_TUNING.rise_odds && k < TS_TUNING.rises_max)) {
        chance *= p;
        k++;
    }
    return k;
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

/* Whether s, within both edges, leaves the held sample's step standing: a
 * step of S lowers one way's edge by S and raises the other's, so s,
 * queued past S on the way lowered, still sits S above the raised edge,
 * within the two readings' agreement. Only for a step clearly beyond what
 * the model's drift gives (the least it can be, its reading less half its
 * queueing, over clear_k step limits it was held at: a changing rate the
 * model lags crosses the limit one exchange at a time, so its reading is
 * the limit and what the error grew by since), and at most step_waits
 * times: such a sample is dropped and the next
 * asked for at once, where letting the held sample in as no step would
 * leave the step untaken and the level half of it off until the window
 * forgets the old edge. A sample whose raised way is not raised tells it
 * was no step. Not for a held outlier, which is never admitted: its
 * reading is off by half its round trip's excess, a spike's hundreds of
 * ms, so it would drop samples for nothing. */
static bool still_a_step(const ticksync_t *self, const sample_t *s)
{
    double agree = agreement(self, self->suspect_excess, 0);
    double size = fabs(self->suspect_step);
    if (self->suspect_shorter || self->suspect_outlier || self->suspect_waits >= TS_TUNING.step_waits
        || !clear_step(self->suspect_step, self->suspect_excess, self->suspect_limit))
        return false;
    double r_up, r_down;
    ts_level_residuals(&self->level, s, &r_up, &r_down);
    return (self->suspect_step > 0 ? r_up : r_down) >= size - agree;
}

/* A new path: the minimum itself has risen, for long enough. A rise
 * is a delay over the filter's minimum by path_change_us, or by less
 * where the filter rejects it as an outlier (dev_limit): else a new
 * path longer by an amount between the two had every sample
 * rejected, and the clock stayed on the old path's for good. A
 * run's rises are over the least as it was at its first: the new
 * route's admitted samples fill the filter in filter_size, and a
 * run that needs more would otherwise end there and never finish. How
 * many it needs is read again as the run's least excess falls. */
static void count_rise(ticksync_t *self, const sample_t *s)
{
    if (self->rises == 0) {
        self->rise = fmin((double) self->cfg.path_change_us, dev_limit(self));
        self->rise_from = filter_min_delay(self);
    }
    double excess = (double) (s->delay - self->rise_from);
    if (excess <= self->rise) {
        self->rises = 0;
    } else {
        if (self->rises++ == 0 || excess < self->run_least) {   /* how long it must be, read as its least falls */
            self->run_least = excess;
            self->rises_needed = rises_needed(self, excess);
        }
        if (self->rises >= self->rises_needed)
            reset_filter(self, s->local);
    }
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
    return ts_level_against(&self->level, &self->drift, s, (double) self->cfg.server_step_us, &step, &excess)
           == TS_EDGES_STEPPED;
}

/* Whether the path's first ways straddle a server step: they came before
 * there were edges to test them against, so once as many ways after them
 * give edges of their own, they are tested against those as every later
 * sample is (place), and two in a row below one of those edges by about
 * the same amount are a step in the burst that starts the path. The edges
 * formed from both sides of it straddle it, and where heavy queueing puts
 * the least round trip far above the edges' sum anyway, ts_level_straddles
 * cannot tell (a +23 ms step under log-normal queueing of a 7.8 ms median
 * stayed half taken for 221.5 s, the failover draw 78 of seed 4242). Edges
 * of a few ways are rough, and with no drift yet they stand on none: only
 * a clear step counts, its least size over clear_k step limits, as for a
 * step that waits (still_a_step). Under bimodal queueing the clock's first
 * ways read a false 4-6 ms step against the next few (the draw 109 of
 * 9001 --wide: 0.31 -> 0.59 ms), which that leaves. */
static bool first_ways_stepped(const ticksync_t *self)
{
    const ts_rings_t *r = &self->rings;
    int n = TS_TUNING.ways_min;
    if (self->since != INT64_MIN || r->nways != 2 * n)
        return false;
    ts_level_t later = self->level;
    ts_level_update(&later, r, &self->drift, ts_rings_local(r, ts_rings_way(r, n)->local));
    double f = self->cfg.up_fraction, server_step = (double) self->cfg.server_step_us, held_step = 0, held_excess = 0;
    bool held = false;
    for (int i = 0; i < n; i++) {
        const ts_way_t *w = ts_rings_way(r, i);
        double delay = (double) w->up + (double) w->down, step = 0, excess = 0;
        sample_t s = { .local = ts_rings_local(r, w->local),
                       .offset = (double) w->up - f * delay + r->origin_offset,
                       .delay = (int64_t) llround(delay) };
        if (ts_level_against(&later, &self->drift, &s, server_step, &step, &excess) != TS_EDGES_STEPPED
            || !clear_step(step, excess, ts_level_step_limit(&later, &self->drift, s.local, server_step))) {
            held = false;
            continue;
        }
        if (held && fabs(step - held_step) <= agreement(self, excess, held_excess))
            return true;
        held = true;
        held_step = step;
        held_excess = excess;
    }
    return false;
}

/* Whether the path's first ways are still to be tested (first_ways_stepped)
 * and the edges may straddle a step (ts_level_in_doubt). The ways the
 * test waits for are then asked at the burst's pace. */
static bool first_ways_doubtful(const ticksync_t *self)
{
    return self->since == INT64_MIN && self->rings.nways < 2 * TS_TUNING.ways_min
           && ts_level_in_doubt(&self->level, (double) self->cfg.server_step_us);
}

/* An accepted sample, against the ways' edges: admitted, held for a
 * second one (a step, a shorter route), taken with the one held, or
 * dropped while a clear step waits. */
static void place(ticksync_t *self, const sample_t *s)
{
    /* edges that straddle a step no test saw, or first ways that tell
     * one: the path starts over from the step's side, which this sample
     * is on */
    if (ts_level_straddles(&self->level, (double) self->cfg.server_step_us) || first_ways_stepped(self)) {
        reset_filter(self, s->local);
        admit(self, s);
        return;
    }
    /* below an edge the step moved, a sample is first that step's error */
    if (read_step(self, s))
        ts_level_update(&self->level, &self->rings, &self->drift, self->since);
    double step = 0, excess = 0;
    ts_edges_t edges =
        ts_level_against(&self->level, &self->drift, s, (double) self->cfg.server_step_us, &step, &excess);
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
    if (edges != TS_EDGES_HELD && self->suspect && (self->suspect_shorter || edges == TS_EDGES_SHORTER)) {
        sample_t first = self->suspect_sample;
        reset_filter(self, first.local);
        admit(self, &first);
        admit(self, s);
        return;
    }
    /* A step of the server's time shows in two samples in a row below a
     * way's edge by about the same amount; the first waits for the second.
     * The step is read from the two, and again from each sample after. */
    if (edges == TS_EDGES_STEPPED) {
        double agree = agreement(self, excess, self->suspect_excess);
        if (self->suspect && self->suspect_outlier == outlier(self, s) && fabs(step - self->suspect_step) <= agree) {
            sample_t first = self->suspect_sample;
            self->suspect = false;
            move_history(self, first.local, &first, s, agree);
            admit(self, &first);
            admit(self, s);
            return;
        }
        if (self->suspect)   /* two different moves: the older was no step */
            admit(self, &self->suspect_sample);
        hold(self, s, step, excess, false);
        return;
    }
    if (edges == TS_EDGES_SHORTER) {
        hold(self, s, 0, 0, true);
        return;
    }
    if (self->suspect && still_a_step(self, s)) {   /* dropped: it tells neither way */
        self->suspect_waits++;
        ts_poll_soon(&self->poll);
        return;
    }
    if (self->suspect) {   /* one sample alone: no step */
        self->suspect = false;
        admit(self, &self->suspect_sample);
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
    if (chosen(self))
        count_rise(self, &s);
    note_excess(self, delay);
    if (outlier(self, &s)) {
        self->stats.rejected_dev++;
        /* for the tests against the edges alone (admit leaves it out), and
         * paired only with another outlier: a spike's excess makes the
         * readings' agreement hundreds of ms wide, and a sample held in
         * range was taken by one for a step (31337 --wide, draw 123) */
        if (below_an_edge(self, &s) && (!self->suspect || self->suspect_outlier))
            place(self, &s);
        return TICKSYNC_REJECTED_DEV;
    }
    self->stats.accepted++;
    note_predicted(self, &s);
    int64_t least = filter_min_delay(self);
    place(self, &s);
    if (filter_min_delay(self) > least && filter_risen(self)) {
        reset_filter(self, s.local);
        admit(self, &s);
    }
    return TICKSYNC_ACCEPTED;
}

/* ---- what the game asks ---------------------------------------------------- */

static double target_offset(const ticksync_t *self, int64_t local)
{
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

int64_t ticksync_error_bound(const ticksync_t *self, int64_t local)
{
    const sample_t *c = chosen(self);
    if (!c)
        return INT64_MAX;
    double up = self->cfg.up_fraction > 0.5 ? self->cfg.up_fraction : 1 - self->cfg.up_fraction;
    double age = (double) (local > c->local ? local - c->local : 0);
    double carried = c->offset + self->drift.freq * (double) (local - c->local);   /* the chosen sample, carried */
    double shown = self->shown ? self->shown_offset : target_offset(self, local);
    double suspect = self->suspect ? fabs(self->suspect_step) : 0;   /* a server step not yet confirmed */
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
    double suspect = self->suspect ? fabs(self->suspect_step) : 0;
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
    return ts_poll_next(&self->poll, ticksync_synced(self) && !self->suspect && !first_ways_doubtful(self));
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
