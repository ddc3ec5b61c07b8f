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

#define ALGOS (SEEDS + 1)   /* the seeds, then libticksync */
#define FRAME_US (1e6 / 60)

typedef struct {
    const char *name, *what;
    double      seconds, interval_s, converge_from_s;
    double      up_ms, down_ms, jitter_ms;
    int         jitter_kind;          /* 0 uniform, 1 exponential, 2 Pareto */
    double      drift_ppm;
    double      spike_p, spike_ms_lo, spike_ms_hi, loss_p;
    int         loss_burst;
    double      change_at_s, up2_ms, down2_ms;   /* route change */
} trace_t;

static const trace_t traces[] = {
    { "symmetric", "20 ms each way + uniform 0..10 ms jitter each way", 600, 1, 10, 20, 20, 10, 0, 0, 0, 0, 0, 0, 0, 0,
      0, 0 },
    { "heavy-tail", "15 ms each way + Pareto(1.5) jitter, scale 3 ms", 600, 1, 10, 15, 15, 3, 2, 0, 0, 0, 0, 0, 0, 0,
      0, 0 },
    { "asymmetric", "40 ms up, 10 ms down, 1 ms jitter (bound |up-down|/2 = 15 ms)", 600, 1, 10, 40, 10, 1, 0, 0, 0,
      0, 0, 0, 0, 0, 0, 0 },
    { "drift", "200 ppm client drift, an hour, 5 s interval, 25 ms each way, 2 ms jitter", 3600, 5, 60, 25, 25, 2, 0,
      200, 0, 0, 0, 0, 0, 0, 0, 0 },
    { "route-change", "20 ms each way, then 45 ms each way from 300 s; 50 ppm drift", 900, 1, 10, 20, 20, 2, 0, 50, 0,
      0, 0, 0, 0, 300, 45, 45 },
    { "mobile", "30 ms each way, exp. jitter 5 ms, 5% spikes of 200..800 ms, 2% loss in bursts of 5", 900, 1, 10, 30, 30,
      5, 1, 20, 0.05, 200, 800, 0.02, 5, 0, 0, 0 },
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

static double jitter(const trace_t *t)
{
    double u = uniform(), j = t->jitter_ms * 1000;
    switch (t->jitter_kind) {
    case 1: return -j * log(1 - u);
    case 2: return fmin(j * (pow(1 - u, -1 / 1.5) - 1), 2e6);
    default: return j * u;
    }
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
    double drift = t->drift_ppm * 1e-6, offset0 = 3.7e9;   /* the client's clock: any epoch */
    double bound_us = fabs(t->up_ms - t->down_ms) * 1000 / 2;
    double frame = 0, next_csv = 0;
    int lost_run = 0;
    for (double now = 0; now < t->seconds * 1e6;) {
        /* the next exchange, on libticksync's schedule */
        int64_t due = ticksync_next_sync(lib);
        double t_sync = due == INT64_MIN ? now : ((double) due - offset0) / (1 + drift);
        if (t_sync < now)
            t_sync = now;
        for (; frame < t_sync; frame += FRAME_US) {
            int64_t local = (int64_t) llround(offset0 + frame * (1 + drift));
            bool change = t->change_at_s > 0 && frame >= t->change_at_s * 1e6;
            double b = change ? fabs(t->up2_ms - t->down2_ms) * 1000 / 2 : bound_us;
            double tolerance = fmax(2000, b + 1000);
            for (int a = 0; a < ALGOS; a++) {
                double shown = a < SEEDS ? seed_now(&seeds[a], local) : (double) ticksync_now(lib, local);
                if (shown == 0)
                    continue;
                if (shown < sc[a].shown_prev)
                    sc[a].backwards++;
                sc[a].shown_prev = shown;
                double err = shown - frame;
                if (fabs(err) > tolerance)
                    sc[a].converge_s = -1;   /* converged only if it stays */
                else if (sc[a].converge_s < 0)
                    sc[a].converge_s = frame / 1e6;
                if (frame >= t->converge_from_s * 1e6)
                    record(&sc[a], err);
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
        int64_t t1 = (int64_t) llround(offset0 + now * (1 + drift));
        ticksync_sent(lib, t1);
        bool lost = lost_run > 0 || uniform() < t->loss_p;
        if (lost) {
            lost_run = lost_run > 0 ? lost_run - 1 : t->loss_burst;
        } else {
            bool change = t->change_at_s > 0 && now >= t->change_at_s * 1e6;
            double up = (change ? t->up2_ms : t->up_ms) * 1000 + jitter(t);
            double down = (change ? t->down2_ms : t->down_ms) * 1000 + jitter(t);
            if (uniform() < t->spike_p)
                up += (t->spike_ms_lo + (t->spike_ms_hi - t->spike_ms_lo) * uniform()) * 1000;
            double t2 = now + up, t3 = t2 + 50;
            int64_t t4 = (int64_t) llround(offset0 + (t3 + down) * (1 + drift));
            ticksync_sample(lib, t1, (int64_t) llround(t2), (int64_t) llround(t3), t4);
            for (int k = 0; k < SEEDS; k++)
                seed_sample(&seeds[k], t1, (int64_t) llround(t2), (int64_t) llround(t3), t4);
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
        fprintf(out, "| %s | %.3f | %.3f | %.3f | %s | %ld |\n", a < SEEDS ? seed_name((seed_kind_t) a) : "libticksync",
                p50 / 1000, p99 / 1000, max / 1000, conv, s->backwards);
        free(s->err);
    }
    ticksync_destroy(&lib);
}

int main(int argc, char **argv)
{
    const char *dir = NULL;
    for (int i = 1; i < argc; i += 2) {
        bool ok = i + 1 < argc;
        if (ok && strcmp(argv[i], "--csv") == 0) {
            dir = argv[i + 1];
        } else if (ok && strcmp(argv[i], "--seed") == 0) {
            char *end;
            seed = strtoull(argv[i + 1], &end, 10);
            ok = *argv[i + 1] && !*end && seed != 0;
        } else {
            ok = false;
        }
        if (!ok) {
            fprintf(stderr, "usage: ticksync-accuracy [--csv DIR] [--seed N]\n");
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
        run_trace(&traces[i], csv, stdout);
        if (csv)
            fclose(csv);
    }
    return 0;
}
