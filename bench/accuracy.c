/* bench/accuracy.c - a deterministic simulator: the same delay traces go to
 * libticksync and to the seeds' algorithms (bench/seeds.h), and each one's
 * server time is checked against the truth at 60 frames a second.
 *
 *   ticksync-accuracy [--csv DIR] [--seed N] [--from S] [--trace NAME] [--ticks]
 *
 * prints, per trace and algorithm, the offset error after convergence
 * (p50, p99, max), the time to converge (from then on the error stays
 * within max(2 ms, the trace's asymmetry bound + 1 ms)), and how many
 * frames saw server time go backwards. With --csv, DIR/TRACE.csv gets the
 * error over time of every algorithm (one row a second) for plotting.
 * --seed N draws other jitter, spikes and losses (default 12345, the draw
 * bench/RESULTS.md reports), to see that a change helps beyond one draw.
 * --from S scores errors from S seconds on where that is later than the
 * trace's convergence window: the steady state, once the rate is learnt.
 * --trace NAME runs one trace; --ticks the timeline's run (below).
 *
 * Exchanges follow libticksync's schedule (a burst, then the trace's
 * interval) and every algorithm gets every exchange that is not lost, so
 * they all see the same samples. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prng.h"
#include "seeds.h"
#include "ticksync.h"

#define LIB    SEEDS         /* libticksync's row, after the seeds' */
#define ORACLE (SEEDS + 1)   /* then the oracle's */
#define ALGOS  (SEEDS + 2)
#define ORACLE_WINDOW 192    /* the samples libticksync keeps of each way */
#define FRAME_US (1e6 / 60)

typedef struct {
    const char *name, *what;
    double      seconds, interval_s, converge_from_s;
    double      up_ms, down_ms, jitter_ms;
    int         jitter_kind;          /* 0 uniform, 1 exponential, 2 Pareto(1.5), 3 log-normal (sigma 1, median jitter_ms) */
    double      up_queue_ms;          /* an exponential queue on the way up only: a congested uplink */
    double      drift_ppm;
    double      wander_ppm, wander_period_s;   /* the drift moves by wander * sin(2 pi t / period) */
    double      spike_p, spike_ms_lo, spike_ms_hi, loss_p;
    int         loss_burst;
    double      change_at_s, up2_ms, down2_ms;   /* route change */
    double      burst_every_s, burst_s, burst_ms;   /* bursty link: for burst_s of every burst_every_s,
                                                      up to burst_ms more each way */
    double      handover_every_s, outage_s, handover_ms;   /* an outage, then each way's base moves by
                                                             up to +-handover_ms */
    double      step_at_s[2], step_ms[2];   /* the server's time steps */
} trace_t;

static const trace_t traces[] = {
    { "symmetric", "20 ms each way + uniform 0..10 ms jitter each way", 600, 1, 10, 20, 20, 10, 0, .drift_ppm = 0 },
    { "heavy-tail", "15 ms each way + Pareto(1.5) jitter, scale 3 ms", 600, 1, 10, 15, 15, 3, 2, .drift_ppm = 0 },
    { "asymmetric", "40 ms up, 10 ms down, 1 ms jitter (bound |up-down|/2 = 15 ms)", 600, 1, 10, 40, 10, 1, 0,
      .drift_ppm = 0 },
    { "drift", "200 ppm client drift, an hour, 5 s interval, 25 ms each way, 2 ms jitter", 3600, 5, 60, 25, 25, 2, 0,
      .drift_ppm = 200 },
    { "route-change", "20 ms each way, then 45 ms each way from 300 s; 50 ppm drift", 900, 1, 10, 20, 20, 2, 0,
      .drift_ppm = 50, .change_at_s = 300, .up2_ms = 45, .down2_ms = 45 },
    { "mobile", "30 ms each way, exp. jitter 5 ms, 5% spikes of 200..800 ms, 2% loss in bursts of 5", 900, 1, 10, 30, 30,
      5, 1, .drift_ppm = 20, .spike_p = 0.05, .spike_ms_lo = 200, .spike_ms_hi = 800, .loss_p = 0.02, .loss_burst = 5 },
    { "server-step", "20 ms each way, 2 ms jitter, 10 ppm; the server's time steps +50 ms at 200 s, -50 ms at 400 s",
      600, 1, 10, 20, 20, 2, 0, .drift_ppm = 10, .step_at_s = { 200, 400 }, .step_ms = { 50, -50 } },
    { "drift-wander", "20 ms each way, 2 ms jitter; drift 20 +- 30 ppm over a 10-minute period", 1800, 1, 60, 20, 20, 2,
      0, .drift_ppm = 20, .wander_ppm = 30, .wander_period_s = 600 },
    { "drift-steady", "drift-wander without the wander: 20 ms each way, 2 ms jitter, a steady 20 ppm", 1800, 1, 60, 20,
      20, 2, 0, .drift_ppm = 20 },
    { "wifi-bursty", "8 ms each way, exp. jitter 1 ms; bursts of up to 60 ms more each way for 3 s of every 20 s", 900, 1,
      10, 8, 8, 1, 1, .drift_ppm = 30, .burst_every_s = 20, .burst_s = 3, .burst_ms = 60 },
    { "lognormal", "25 ms each way + log-normal queueing each way (median 3 ms, sigma 1)", 900, 1, 10, 25, 25, 3, 3,
      .drift_ppm = -40 },
    { "uplink-congested", "20 ms each way, 0.5 ms jitter; the way up queues exp. 15 ms", 900, 1, 10, 20, 20, 0.5, 0,
      .up_queue_ms = 15, .drift_ppm = 15 },
    { "handover", "40 ms each way, exp. jitter 3 ms; every 120 s a 2 s outage, then each way's base moves by up to 10 ms",
      1200, 1, 10, 40, 40, 3, 1, .drift_ppm = -25, .handover_every_s = 120, .outage_s = 2, .handover_ms = 10 },
};
#define TRACES (sizeof traces / sizeof traces[0])

typedef struct {
    double *err;
    size_t  n, cap;
    double  last_out, converge_s;
    long    backwards;
    double  shown_prev;
} score_t;

static uint64_t rng, seed = 12345;
static double   from_s;   /* --from: errors are scored from this time on, if later than the trace's own */

static double uniform(void)
{
    return ts_prng_uniform(&rng);
}

static double uniform_of(uint64_t *r)
{
    return ts_prng_uniform(r);
}

static double normal(uint64_t *r)
{
    double u = uniform_of(r), v = uniform_of(r);
    return sqrt(-2 * log(1 - u)) * cos(2 * M_PI * v);
}

static double jitter(const trace_t *t, uint64_t *r)
{
    double u = uniform_of(r), j = t->jitter_ms * 1000;
    switch (t->jitter_kind) {
    case 1: return -j * log(1 - u);
    case 2: return fmin(j * (pow(1 - u, -1 / 1.5) - 1), 2e6);
    case 3: return j * exp(normal(r));
    default: return j * u;
    }
}

/* The path a trace describes, as time goes: its base delays, moved by a
 * route change or a handover, and whether it is out. */
typedef struct {
    const trace_t *t;
    double base_up, base_down;
    bool   changed;
    int    handovers;
} path_t;

static path_t path_of(const trace_t *t)
{
    return (path_t) { .t = t, .base_up = t->up_ms * 1000, .base_down = t->down_ms * 1000 };
}

/* Brings the path to true time now; true when its base delays changed. */
static bool path_advance(path_t *p, double now)
{
    const trace_t *t = p->t;
    bool moved = false;
    if (t->change_at_s > 0 && !p->changed && now >= t->change_at_s * 1e6) {
        p->changed = moved = true;
        p->base_up = t->up2_ms * 1000;
        p->base_down = t->down2_ms * 1000;
    }
    if (t->handover_every_s > 0) {
        int k = (int) (now / (t->handover_every_s * 1e6));
        if (k > p->handovers) {
            p->handovers = k;
            p->base_up = (t->up_ms + (2 * uniform() - 1) * t->handover_ms) * 1000;
            p->base_down = (t->down_ms + (2 * uniform() - 1) * t->handover_ms) * 1000;
            moved = true;
        }
    }
    return moved;
}

static bool path_out(const path_t *p, double now)
{
    const trace_t *t = p->t;
    if (t->handover_every_s <= 0)
        return false;
    int k = (int) (now / (t->handover_every_s * 1e6));
    return k > 0 && now - k * t->handover_every_s * 1e6 < t->outage_s * 1e6;
}

/* One message's delays each way at true time now, drawn from r. */
static void path_delays(const path_t *p, double now, uint64_t *r, double *up, double *down)
{
    const trace_t *t = p->t;
    *up = p->base_up + jitter(t, r);
    *down = p->base_down + jitter(t, r);
    if (uniform_of(r) < t->spike_p)
        *up += (t->spike_ms_lo + (t->spike_ms_hi - t->spike_ms_lo) * uniform_of(r)) * 1000;
    if (t->up_queue_ms > 0)
        *up += -t->up_queue_ms * 1000 * log(1 - uniform_of(r));
    if (t->burst_every_s > 0 && fmod(now, t->burst_every_s * 1e6) < t->burst_s * 1e6) {
        *up += t->burst_ms * 1000 * uniform_of(r);
        *down += t->burst_ms * 1000 * uniform_of(r);
    }
}

/* The client's clock at true time t (µs): any epoch, a drift that may wander. */
static double local_at(const trace_t *t, double at)
{
    double w = t->wander_ppm * 1e-6, p = t->wander_period_s * 1e6;
    double wander = w && p ? w * p / (2 * M_PI) * (1 - cos(2 * M_PI * at / p)) : 0;
    return 3.7e9 + at * (1 + t->drift_ppm * 1e-6) + wander;
}

static double rate_at(const trace_t *t, double at)
{
    double p = t->wander_period_s * 1e6;
    return 1 + t->drift_ppm * 1e-6 + (p ? t->wander_ppm * 1e-6 * sin(2 * M_PI * at / p) : 0);
}

/* The server's time at true time t: the truth, plus the steps so far. */
static double server_at(const trace_t *t, double at)
{
    double s = at;
    for (int i = 0; i < 2; i++)
        if (t->step_ms[i] && at >= t->step_at_s[i] * 1e6)
            s += t->step_ms[i] * 1000;
    return s;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

static void record(score_t *s, double err)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 65536;
        s->err = realloc(s->err, s->cap * sizeof *s->err);
    }
    s->err[s->n++] = fabs(err);
}

/* When the next exchange is due, in true time, on libticksync's schedule. */
static double next_exchange(const trace_t *t, const ticksync_t *lib, double now)
{
    int64_t due = ticksync_next_sync(lib);
    double at = due == INT64_MIN ? now : now + ((double) due - local_at(t, now)) / rate_at(t, now);
    return at < now ? now : at;
}

/* One exchange at true time now. */
typedef struct {
    bool    moved;             /* the path's base delays changed before it */
    bool    arrived;           /* not lost: its timestamps are below */
    int64_t t1, t2, t3, t4;
    double  up, down;          /* the one-way delays it met */
} exchange_t;

/* The SYNC leaves (libticksync is told), the path is brought to now, and
 * unless the exchange is lost its sample goes to libticksync. */
static exchange_t exchange(const trace_t *t, ticksync_t *lib, path_t *path, int *lost_run, double now)
{
    exchange_t x = { .t1 = (int64_t) llround(local_at(t, now)) };
    ticksync_sent(lib, x.t1);
    x.moved = path_advance(path, now);
    bool outage = path_out(path, now);
    bool lost = outage || *lost_run > 0 || uniform() < t->loss_p;
    if (lost && !outage) {
        *lost_run = *lost_run > 0 ? *lost_run - 1 : t->loss_burst;
    } else if (!lost) {
        path_delays(path, now, &rng, &x.up, &x.down);
        x.t2 = (int64_t) llround(server_at(t, now + x.up));
        x.t3 = (int64_t) llround(server_at(t, now + x.up + 50));
        x.t4 = (int64_t) llround(local_at(t, now + x.up + 50 + x.down));
        x.arrived = true;
        ticksync_sample(lib, x.t1, x.t2, x.t3, x.t4);
    }
    return x;
}

/* The oracle: each way's least one-way delay over the last ORACLE_WINDOW
 * exchanges of the present path, brought to now along the true clock rate,
 * split by up_fraction as libticksync is told. It knows the rate and when
 * the path changes (it starts over then), and learns of a server step from
 * the first exchange after it (it starts over then too). Its error is the
 * least queueing each way met, halved: the limit of a two-way estimator
 * that sees these exchanges and is told what libticksync is told. */
typedef struct {
    double up[ORACLE_WINDOW], down[ORACLE_WINDOW];
    int    n, next;
    double error;   /* signed, µs; valid once n > 0 */
    double steps;   /* the server's steps as of its last exchange */
} oracle_t;

static void oracle_add(oracle_t *o, double up, double down, double f)
{
    o->up[o->next] = up;
    o->down[o->next] = down;
    o->next = (o->next + 1) % ORACLE_WINDOW;
    if (o->n < ORACLE_WINDOW)
        o->n++;
    double mu = INFINITY, md = INFINITY;
    for (int i = 0; i < o->n; i++) {
        mu = fmin(mu, o->up[i]);
        md = fmin(md, o->down[i]);
    }
    o->error = (1 - f) * mu - f * md;
}

typedef struct {
    double bound_held, frames;       /* libticksync: frames whose error its bound covered */
    double expected_held;            /* ... and its expected error */
    double *ratio;                   /* expected error / |error|, a frame each */
    size_t  nratio, cap;
    double settle_s[2];              /* after each server step: until the error stays within 5 ms */
    double since_over[2];
} lib_score_t;

static void run_trace(const trace_t *t, FILE *csv, FILE *out)
{
    rng = seed;
    ticksync_config_t cfg;
    ticksync_config_default(&cfg);
    cfg.interval_us = (int64_t) (t->interval_s * 1e6);
    ticksync_t *lib = ticksync_new(&cfg);
    seed_t seeds[SEEDS];
    for (int k = 0; k < SEEDS; k++)
        seed_init(&seeds[k], (seed_kind_t) k);
    score_t sc[ALGOS];
    memset(sc, 0, sizeof sc);
    for (int a = 0; a < ALGOS; a++)
        sc[a].converge_s = -1;
    oracle_t oracle = { .n = 0 };
    lib_score_t ls = { .settle_s = { -1, -1 } };
    path_t path = path_of(t);   /* (the oracle restarts with each change of its base delays) */
    double frame = 0, next_csv = 0;
    int lost_run = 0;
    for (double now = 0; now < t->seconds * 1e6;) {
        double t_sync = next_exchange(t, lib, now);
        for (; frame < t_sync; frame += FRAME_US) {
            int64_t local = (int64_t) llround(local_at(t, frame));
            double truth = server_at(t, frame);
            double b = fabs(path.base_up - path.base_down) / 2;
            double tolerance = fmax(2000, b + 1000);
            for (int a = 0; a < ALGOS; a++) {
                double shown = a < SEEDS ? seed_now(&seeds[a], local)
                             : a == LIB ? (double) ticksync_now(lib, local)
                             : oracle.n ? frame + oracle.steps + oracle.error : 0;
                if (shown == 0)
                    continue;
                if (shown < sc[a].shown_prev)
                    sc[a].backwards++;
                sc[a].shown_prev = shown;
                double err = shown - truth;
                if (fabs(err) > tolerance)
                    sc[a].converge_s = -1;   /* converged only if it stays */
                else if (sc[a].converge_s < 0)
                    sc[a].converge_s = frame / 1e6;
                if (frame >= fmax(t->converge_from_s, from_s) * 1e6) {
                    record(&sc[a], err);
                    if (a == LIB) {
                        ls.frames++;
                        ls.bound_held += fabs(err) <= (double) ticksync_error_bound(lib, local) + 1;
                        double expected = (double) ticksync_expected_error(lib, local);
                        ls.expected_held += fabs(err) <= expected + 1;
                        if (ls.nratio == ls.cap) {
                            ls.cap = ls.cap ? ls.cap * 2 : 65536;
                            ls.ratio = realloc(ls.ratio, ls.cap * sizeof *ls.ratio);
                        }
                        ls.ratio[ls.nratio++] = expected / fmax(fabs(err), 1);
                    }
                }
                if (a == LIB)
                    for (int i = 0; i < 2; i++) {
                        double at = t->step_at_s[i] * 1e6, end = i == 0 && t->step_ms[1] ? t->step_at_s[1] * 1e6 : INFINITY;
                        if (t->step_ms[i] && frame >= at && frame < end && fabs(err) > 5000)
                            ls.since_over[i] = frame + FRAME_US;
                    }
                sc[a].last_out = err;
            }
            if (csv && frame >= next_csv) {
                fprintf(csv, "%.0f", frame / 1e6);
                for (int a = 0; a < ALGOS; a++)
                    fprintf(csv, " %.3f", sc[a].last_out / 1000);
                fprintf(csv, "\n");
                next_csv += 1e6;
            }
        }
        now = t_sync;
        exchange_t x = exchange(t, lib, &path, &lost_run, now);
        if (x.moved)
            oracle.n = oracle.next = 0;
        if (x.arrived) {
            for (int k = 0; k < SEEDS; k++)
                seed_sample(&seeds[k], x.t1, x.t2, x.t3, x.t4);
            double steps = server_at(t, now) - now;
            if (steps != oracle.steps)
                oracle.n = oracle.next = 0;
            oracle.steps = steps;
            oracle_add(&oracle, x.up, x.down, cfg.up_fraction);
        }
        now += 1;
    }
    fprintf(out, "\n### %s: %s\n\n| algorithm | p50 ms | p99 ms | max ms | converged at s | backwards |\n"
                 "|---|---:|---:|---:|---:|---:|\n", t->name, t->what);
    for (int a = 0; a < ALGOS; a++) {
        score_t *s = &sc[a];
        qsort(s->err, s->n, sizeof *s->err, cmp_double);
        double p50 = s->n ? s->err[s->n / 2] : 0, p99 = s->n ? s->err[(s->n * 99) / 100] : 0;
        double max = s->n ? s->err[s->n - 1] : 0;
        char conv[32];
        if (s->converge_s < 0)
            snprintf(conv, sizeof conv, "never");
        else
            snprintf(conv, sizeof conv, "%.1f", s->converge_s);
        fprintf(out, "| %s | %.3f | %.3f | %.3f | %s | %ld |\n",
                a < SEEDS ? seed_name((seed_kind_t) a) : a == LIB ? "libticksync" : "oracle",
                p50 / 1000, p99 / 1000, max / 1000, conv, s->backwards);
        free(s->err);
    }
    ticksync_stats_t st;
    ticksync_stats(lib, &st);
    qsort(ls.ratio, ls.nratio, sizeof *ls.ratio, cmp_double);
    fprintf(out, "\nlibticksync: bound covers %.2f%% of frames; expected error covers %.2f%%, "
                 "median expected / |error| %.1f; server steps %llu, path resets %llu",
            ls.frames ? 100 * ls.bound_held / ls.frames : 0, ls.frames ? 100 * ls.expected_held / ls.frames : 0,
            ls.nratio ? ls.ratio[ls.nratio / 2] : 0, (unsigned long long) st.server_steps,
            (unsigned long long) st.path_resets);
    free(ls.ratio);
    for (int i = 0; i < 2; i++)
        if (t->step_ms[i])
            fprintf(out, "; within 5 ms %.1f s after the %+g ms step", ls.since_over[i] > 0
                    ? (ls.since_over[i] - t->step_at_s[i] * 1e6) / 1e6 : 0.0, t->step_ms[i]);
    fprintf(out, "\n");
    ticksync_destroy(&lib);
}

/* --ticks: a client simulating at 60 Hz with libticksync's timeline, on
 * the trace's path, against a server ticking at 60 Hz from epoch 0. Each
 * frame, once the client has converged, sends an input stamped
 * ticksync_input_tick; it travels the way up (drawn as the trace's SYNCs
 * are, from its own stream) and is in time if it reaches the server before
 * the server starts simulating that tick. The client's own simulation
 * starts 200 ms behind the input tick and runs at ticksync_time_scale.
 *
 * Inputs in time are counted twice: each input sent once, and each input
 * sent again in the next three frames' packets, as game netcode does
 * against loss and spikes (Unity's Netcode for Entities sends the last
 * k_InputBufferSendSize = 4 inputs in every command packet). An input is
 * then in time if any of its four packets reaches the server before its
 * tick; each packet draws its own delay. */
#define TICK_US    16667
#define REDUNDANCY 4

typedef struct {   /* an input whose packets are still being sent */
    int64_t tick;
    double  best;   /* the greatest margin of its packets so far, µs */
    int     sent;
} pending_input_t;

static void run_ticks(const trace_t *t, FILE *csv, FILE *out)
{
    rng = seed;
    uint64_t inputs_rng = seed ^ 0x9e3779b97f4a7c15ULL;
    ticksync_config_t cfg;
    ticksync_config_default(&cfg);
    cfg.interval_us = (int64_t) (t->interval_s * 1e6);
    ticksync_t *lib = ticksync_new(&cfg);
    ticksync_ticks_t ticks;
    ticksync_ticks_default(&ticks, TICK_US, 0);
    path_t path = path_of(t);
    double frame = 0, pos = 0, started = -1, converged = -1, lo = 1, hi = 1, next_csv = 0;
    double *early = NULL;
    size_t nearly = 0, cap = 0, in_time = 0, in_time_any = 0;
    pending_input_t sent[REDUNDANCY] = { 0 };   /* the inputs in this frame's packet, newest first */
    int64_t last_render = INT64_MIN;
    long render_back = 0;
    int lost_run = 0;
    for (double now = 0; now < t->seconds * 1e6;) {
        double t_sync = next_exchange(t, lib, now);
        for (; frame < t_sync; frame += FRAME_US) {
            int64_t local = (int64_t) llround(local_at(t, frame));
            if (!ticksync_synced(lib))
                continue;
            int64_t in = ticksync_input_tick(lib, &ticks, local);
            if (started < 0) {
                started = frame;
                pos = (double) in - 200000.0 / TICK_US;   /* the client starts 200 ms behind */
            }
            double scale = ticksync_time_scale(lib, &ticks, local, (int64_t) floor(pos), pos - floor(pos));
            lo = fmin(lo, scale);
            hi = fmax(hi, scale);
            if (converged < 0 && fabs((double) in - pos) < 1)
                converged = frame;
            int64_t render = ticksync_render_time(lib, &ticks, local);
            render_back += render < last_render;
            last_render = render;
            if (csv && frame >= next_csv) {
                fprintf(csv, "%.2f %.2f %.2f %lld\n", frame / 1e6, pos, server_at(t, frame) / TICK_US, (long long) in);
                next_csv += 0.25e6;
            }
            pos += scale * FRAME_US / TICK_US;
            if (converged < 0 || frame < t->converge_from_s * 1e6 || path_out(&path, frame))
                continue;
            double up, down;
            path_delays(&path, frame, &inputs_rng, &up, &down);
            double arrives = server_at(t, frame + up);
            double margin = (double) in * TICK_US - arrives;   /* before the tick starts */
            in_time += margin > 0;
            if (sent[REDUNDANCY - 1].sent)   /* its last packet has gone */
                in_time_any += sent[REDUNDANCY - 1].best > 0;
            memmove(&sent[1], &sent[0], (REDUNDANCY - 1) * sizeof sent[0]);
            sent[0] = (pending_input_t) { .tick = in, .best = -INFINITY };
            for (int k = 0; k < REDUNDANCY; k++)
                if (k == 0 || sent[k].sent) {
                    sent[k].best = fmax(sent[k].best, (double) sent[k].tick * TICK_US - arrives);
                    sent[k].sent++;
                }
            if (nearly == cap) {
                cap = cap ? cap * 2 : 65536;
                early = realloc(early, cap * sizeof *early);
            }
            early[nearly++] = margin / TICK_US;
        }
        now = t_sync;
        exchange(t, lib, &path, &lost_run, now);
        now += 1;
    }
    for (int k = 0; k < REDUNDANCY; k++)   /* the last inputs, in fewer packets */
        in_time_any += sent[k].sent && sent[k].best > 0;
    qsort(early, nearly, sizeof *early, cmp_double);
    /* early[] holds ticks of margin; the late ones are negative and first */
    size_t late = nearly - in_time;
    double p50 = nearly ? early[late + (nearly - late) / 2] : 0, p99 = nearly ? early[late + (nearly - late) * 99 / 100] : 0;
    fprintf(out, "| %s | %.2f%% | %.2f%% | %.2f | %.2f | %.1f | %.3f .. %.3f | %ld |\n", t->name,
            nearly ? 100.0 * (double) in_time / (double) nearly : 0,
            nearly ? 100.0 * (double) in_time_any / (double) nearly : 0, p50, p99,
            converged >= 0 ? (converged - started) / 1e6 : -1, lo, hi, render_back);
    free(early);
    ticksync_destroy(&lib);
}

int main(int argc, char **argv)
{
    const char *dir = NULL, *only = NULL;
    bool ticks = false;
    for (int i = 1; i < argc; i += 2) {
        bool ok = i + 1 < argc;
        if (strcmp(argv[i], "--ticks") == 0) {
            ticks = true;
            i--;
            ok = true;
        } else if (ok && strcmp(argv[i], "--csv") == 0) {
            dir = argv[i + 1];
        } else if (ok && strcmp(argv[i], "--trace") == 0) {
            only = argv[i + 1];
        } else if (ok && strcmp(argv[i], "--from") == 0) {
            char *end;
            from_s = strtod(argv[i + 1], &end);
            ok = *argv[i + 1] && !*end && from_s >= 0;
        } else if (ok && strcmp(argv[i], "--seed") == 0) {
            char *end;
            seed = strtoull(argv[i + 1], &end, 10);
            ok = *argv[i + 1] && !*end && seed != 0;
        } else {
            ok = false;
        }
        if (!ok) {
            fprintf(stderr, "usage: ticksync-accuracy [--ticks] [--csv DIR] [--seed N] [--from S] [--trace NAME]\n");
            return 2;
        }
    }
    if (ticks)
        printf("A 60 Hz client on libticksync's timeline, a server ticking at 60 Hz. Inputs in time: reached\n"
               "the server before it started their tick; early: by how many ticks (p50, p99 of those in time);\n"
               "converge: s for a client 200 ms behind to be within a tick of the input tick; render back:\n"
               "frames where the render time went back.\n\n"
               "| trace | inputs in time, sent once | in time, each in 4 packets | early p50 | early p99 | converge s | scale range | render back |\n"
               "|---|---:|---:|---:|---:|---:|---|---:|\n");
    else
        printf("Offset error |shown - true server time| after convergence; converged: from then on within\n"
               "max(2 ms, asymmetry bound + 1 ms); backwards: frames (60 Hz) where shown time went back.\n");
    for (size_t i = 0; i < TRACES; i++) {
        FILE *csv = NULL;
        if (dir) {
            char path[512];
            snprintf(path, sizeof path, "%s/%s.csv", dir, traces[i].name);
            csv = fopen(path, "w");
            if (!csv) {
                fprintf(stderr, "ticksync-accuracy: cannot write %s\n", path);
                return 1;
            }
        }
        if (only && strcmp(only, traces[i].name) != 0)
            ;
        else if (ticks)
            run_ticks(&traces[i], csv, stdout);
        else
            run_trace(&traces[i], csv, stdout);
        if (csv)
            fclose(csv);
    }
    return 0;
}
