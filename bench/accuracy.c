/* bench/accuracy.c - a deterministic simulator: the same delay traces go to
 * libticksync and to the seeds' algorithms (bench/seeds.h), and each one's
 * server time is checked against the truth at 60 frames a second.
 *
 *   ticksync-accuracy [--csv DIR] [--seed N]
 *
 * prints, per trace and algorithm, the offset error after convergence
 * (p50, p99, max), the time to converge (from then on the error stays
 * within max(2 ms, the trace's asymmetry bound + 1 ms)), and how many
 * frames saw server time go backwards. With --csv, DIR/TRACE.csv gets the
 * error over time of every algorithm (one row a second) for plotting.
 * --seed N draws other jitter, spikes and losses (default 12345, the draw
 * bench/RESULTS.md reports), to see that a change helps beyond one draw.
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

static double uniform(void)
{
    return ts_prng_uniform(&rng);
}

static double normal(void)
{
    double u = uniform(), v = uniform();
    return sqrt(-2 * log(1 - u)) * cos(2 * M_PI * v);
}

static double jitter(const trace_t *t)
{
    double u = uniform(), j = t->jitter_ms * 1000;
    switch (t->jitter_kind) {
    case 1: return -j * log(1 - u);
    case 2: return fmin(j * (pow(1 - u, -1 / 1.5) - 1), 2e6);
    case 3: return j * exp(normal());
    default: return j * u;
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
    /* the path: base delays, moved by a route change or a handover (the oracle restarts with each) */
    double base_up = t->up_ms * 1000, base_down = t->down_ms * 1000;
    bool changed = false;
    int handovers = 0;
    double frame = 0, next_csv = 0;
    int lost_run = 0;
    for (double now = 0; now < t->seconds * 1e6;) {
        /* the next exchange, on libticksync's schedule */
        int64_t due = ticksync_next_sync(lib);
        double t_sync = due == INT64_MIN ? now : now + ((double) due - local_at(t, now)) / rate_at(t, now);
        if (t_sync < now)
            t_sync = now;
        for (; frame < t_sync; frame += FRAME_US) {
            int64_t local = (int64_t) llround(local_at(t, frame));
            double truth = server_at(t, frame);
            double b = fabs(base_up - base_down) / 2;
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
                if (frame >= t->converge_from_s * 1e6) {
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
        int64_t t1 = (int64_t) llround(local_at(t, now));
        ticksync_sent(lib, t1);
        if (t->change_at_s > 0 && !changed && now >= t->change_at_s * 1e6) {
            changed = true;
            base_up = t->up2_ms * 1000;
            base_down = t->down2_ms * 1000;
            oracle.n = oracle.next = 0;
        }
        bool outage = false;
        if (t->handover_every_s > 0) {
            int k = (int) (now / (t->handover_every_s * 1e6));
            outage = k > 0 && now - k * t->handover_every_s * 1e6 < t->outage_s * 1e6;
            if (k > handovers) {
                handovers = k;
                base_up = (t->up_ms + (2 * uniform() - 1) * t->handover_ms) * 1000;
                base_down = (t->down_ms + (2 * uniform() - 1) * t->handover_ms) * 1000;
                oracle.n = oracle.next = 0;
            }
        }
        bool lost = outage || lost_run > 0 || uniform() < t->loss_p;
        if (lost && !outage) {
            lost_run = lost_run > 0 ? lost_run - 1 : t->loss_burst;
        } else if (!lost) {
            double up = base_up + jitter(t);
            double down = base_down + jitter(t);
            if (uniform() < t->spike_p)
                up += (t->spike_ms_lo + (t->spike_ms_hi - t->spike_ms_lo) * uniform()) * 1000;
            if (t->up_queue_ms > 0)
                up += -t->up_queue_ms * 1000 * log(1 - uniform());
            if (t->burst_every_s > 0 && fmod(now, t->burst_every_s * 1e6) < t->burst_s * 1e6) {
                up += t->burst_ms * 1000 * uniform();
                down += t->burst_ms * 1000 * uniform();
            }
            double t2 = server_at(t, now + up), t3 = server_at(t, now + up + 50);
            int64_t t4 = (int64_t) llround(local_at(t, now + up + 50 + down));
            ticksync_sample(lib, t1, (int64_t) llround(t2), (int64_t) llround(t3), t4);
            for (int k = 0; k < SEEDS; k++)
                seed_sample(&seeds[k], t1, (int64_t) llround(t2), (int64_t) llround(t3), t4);
            double steps = server_at(t, now) - now;
            if (steps != oracle.steps)
                oracle.n = oracle.next = 0;
            oracle.steps = steps;
            oracle_add(&oracle, up, down, cfg.up_fraction);
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

int main(int argc, char **argv)
{
    const char *dir = NULL, *only = NULL;
    for (int i = 1; i < argc; i += 2) {
        bool ok = i + 1 < argc;
        if (ok && strcmp(argv[i], "--csv") == 0) {
            dir = argv[i + 1];
        } else if (ok && strcmp(argv[i], "--trace") == 0) {
            only = argv[i + 1];
        } else if (ok && strcmp(argv[i], "--seed") == 0) {
            char *end;
            seed = strtoull(argv[i + 1], &end, 10);
            ok = *argv[i + 1] && !*end && seed != 0;
        } else {
            ok = false;
        }
        if (!ok) {
            fprintf(stderr, "usage: ticksync-accuracy [--csv DIR] [--seed N] [--trace NAME]\n");
            return 2;
        }
    }
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
        if (!only || strcmp(only, traces[i].name) == 0)
            run_trace(&traces[i], csv, stdout);
        if (csv)
            fclose(csv);
    }
    return 0;
}
