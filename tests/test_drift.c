/* tests/test_drift.c - the drift chooser (lib/ticksync/drift) on rings fed
 * as the estimator feeds them: the points' line first, then the ways'
 * chords, read within their one stated error; a rate that turns halves the
 * window and the newer half gives the new rate; a steady rate read over the
 * long history is more exact than the window's (a queueing way weighed by
 * its error there too), and a turn after it is
 * still the window's to read; a new path carries the
 * drift over; the error is "unknown" until a source states one, and then
 * a standard error: 2 of it cover 95 % of steady rates. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "drift.h"
#include "ringfeed.h"

static ts_rings_t r;
static ts_drift_t d;

/* One exchange a second from second 'from' to 'to' of a path 20 ms each
 * way with q_up and q_down µs of queueing on the way up and down (feed: q
 * each way), the offset rate(t) µs/µs at t;
 * every sample is a point, as near-minimum ones are. *offset carries the
 * true offset on. */
static void feed_ways(int from, int to, double (*rate)(double), double q_up, double q_down, double *offset)
{
    for (int i = from; i < to; i++) {
        int64_t t = (int64_t) i * 1000000;
        *offset += rate((double) t) * 1e6;
        double qu = ringfeed_queueing(q_up), qd = ringfeed_queueing(q_down);
        ts_sample_t s = { .local = t, .offset = *offset + (qu - qd) / 2, .delay = (int64_t) (40000 + qu + qd) };
        ringfeed(&r, &d, &s, 0.5);
    }
}

static void feed(int from, int to, double (*rate)(double), double q, double *offset)
{
    feed_ways(from, to, rate, q, q, offset);
}

static void start(unsigned seed)
{
    srand(seed);
    ts_rings_init(&r, 64);
    ts_drift_init(&d, 20000000);
}

static double steady_30(double t) { (void) t; return 30e-6; }
static double turning(double t) { return t < 300e6 ? 30e-6 : -30e-6; }
static double late_turn(double t) { return t < 1200e6 ? 30e-6 : -30e-6; }
static double drawn_rate;
static double drawn(double t) { (void) t; return drawn_rate; }

/* A uniform draw in [lo, hi) from rand(). */
static double uniform(double lo, double hi)
{
    return lo + (hi - lo) * rand() / ((double) RAND_MAX + 1.0);
}

Test(drift, unknown_until_the_points_span_the_minimum)
{
    start(1);
    double offset = 0;
    cr_assert_not(d.known);
    cr_assert_eq(ts_drift_error_or(&d, 7.0), 7.0);
    feed(0, 15, steady_30, 300, &offset);
    cr_assert_not(d.known, "15 s of points span less than 20 s");
    feed(15, 25, steady_30, 300, &offset);
    cr_assert(d.known);
    cr_assert(isfinite(ts_drift_error(&d)));
    cr_assert_neq(ts_drift_error_or(&d, 7.0), 7.0);
}

/* Over 20 draws of 300 µs of queueing each way and 200 s at 30 ppm, the
 * ways' chords read the rate: within 1 ppm, and the stated error is of the
 * size of the miss (chord_k = 4.2 of it covers 90 % in test_fit). */
Test(drift, a_steady_rate_is_read_within_its_error)
{
    int within = 0;
    for (unsigned seed = 1; seed <= 20; seed++) {
        start(seed);
        double offset = 0;
        feed(0, 200, steady_30, 300, &offset);
        double err = ts_drift_error(&d), miss = fabs(d.freq - 30e-6);
        cr_assert(miss < 1e-6, "seed %u: %.3f ppm for 30", seed, d.freq * 1e6);
        cr_assert(err > 0 && err < 2e-6, "seed %u: error %.3f ppm", seed, err * 1e6);
        within += miss <= 4.2 * err;
        cr_assert_lt(d.bend_us, 100, "a steady rate bends nothing");
        cr_assert_eq(d.bend_since, ts_rings_local(&r, ts_rings_way(&r, 0)->local), "the whole window kept");
    }
    cr_assert_geq(within, 17, "%d of 20 within 4.2 errors", within);
}

/* The rate turns from +30 to -30 ppm at 300 s: 60 s later the window no
 * longer reaches back before the turn, and the drift is the new rate. */
Test(drift, a_turned_rate_halves_the_window)
{
    start(3);
    double offset = 0;
    feed(0, 300, turning, 300, &offset);
    cr_assert(fabs(d.freq - 30e-6) < 1e-6);
    feed(300, 360, turning, 300, &offset);
    cr_assert_geq(d.bend_since, 300000000LL - 1000000, "the window starts at the turn or after: %lld",
                  (long long) d.bend_since);
    cr_assert(fabs(d.freq + 30e-6) < 3e-6, "%.2f ppm for -30", d.freq * 1e6);
}

/* The drift's one error is a standard error, which everything that uses
 * the drift takes at freq_z (2) of it as a 95 % point: over 400 draws of
 * a steady rate within 100 ppm, exponential queueing of 0.3-6 ms each way
 * (a quarter of them queueing up to 10 times more down), 10 minutes, the
 * drift is within 2 of its errors in at least 357. Over draws 1-20000
 * (2026-11-28, a80657a) it was in 94.65 % of them, 365-393 of each 400;
 * stated at half its size (within 1 error) it would cover 308-349,
 * failing this. Stated at twice its size (within 4) it covers 390-397,
 * which this cannot tell from 2: that the error is not overstated rests
 * on the bench's steady draws, 5.2 % of their seconds beyond 2 errors
 * (DESIGN, "The bound and the expected error"). */
Test(drift, freq_z_of_the_error_covers_95_percent_of_steady_rates)
{
    int within = 0;
    for (unsigned seed = 1; seed <= 400; seed++) {
        start(seed);
        drawn_rate = uniform(-100e-6, 100e-6);
        double q = 300 * pow(20, uniform(0, 1)), q_down = rand() % 4 == 0 ? q * pow(10, uniform(0, 1)) : q;
        double offset = 0;
        feed_ways(0, 600, drawn, q, q_down, &offset);
        within += fabs(d.freq - drawn_rate) <= 2 * ts_drift_error(&d);
    }
    cr_assert_geq(within, 357, "%d of 400 within 2 errors", within);
}

/* A steady rate over 20 minutes: the long history (1,024 samples) reads it
 * more exactly than the 192 s window's chords would. */
Test(drift, the_long_history_reads_a_steady_rate_closer)
{
    start(5);
    double offset = 0;
    feed(0, 1200, steady_30, 1000, &offset);
    cr_assert(d.long_known, "the long history gives the drift");
    cr_assert(d.longer.se < 0.1e-6, "its error %.3f ppm", d.longer.se * 1e6);
    cr_assert(fabs(d.freq - 30e-6) < 0.1e-6, "%.3f ppm for 30", d.freq * 1e6);
}

/* A steady rate behind a way up that queues 15 ms and a clean way down
 * (a congested uplink), over 100 draws: the long history weighs each
 * way's chord by its error, as the window does, and reads the rate to
 * 0.01 ppm off the clean way in nearly every draw it gives one (its runs
 * test, one-sided at 1 %, refuses a few), where the two chords' plain
 * mean takes the queueing way's noise (seed 1: 0.087 ppm off). Over
 * draws 1-1000 (2026-11-28, a80657a): given in 95-99 of each 100, and
 * 0.01 ppm off or more in 0-4 of those (13 of 970, the worst 0.078). */
Test(drift, the_long_history_weighs_a_queueing_way_by_its_error)
{
    int known = 0, off = 0;
    for (unsigned seed = 1; seed <= 100; seed++) {
        start(seed);
        double offset = 0;
        feed_ways(0, 1200, steady_30, 15000, 100, &offset);
        if (!d.long_known)
            continue;
        known++;
        off += fabs(d.longer.rate - 30e-6) >= 0.01e-6;
        cr_assert(d.longer.se < 0.01e-6, "seed %u: its error %.4f ppm", seed, d.longer.se * 1e6);
    }
    cr_assert_geq(known, 93, "the long history gives the drift in %d of 100", known);
    cr_assert_leq(off, 6, "0.01 ppm off or more in %d of the %d it gives", off, known);
}

/* The rate turns from +30 to -30 ppm after 20 steady minutes, which the
 * long history read to 0.1 ppm: the halved window's chords disagree with
 * it by far more than their errors, so the drift is theirs. */
Test(drift, a_turn_after_the_long_history_is_the_window_s)
{
    start(5);
    double offset = 0;
    feed(0, 1200, late_turn, 1000, &offset);
    cr_assert(d.long_known);
    feed(1200, 1260, late_turn, 1000, &offset);
    cr_assert(fabs(d.freq + 30e-6) < 3e-6, "%.2f ppm for -30", d.freq * 1e6);
}

/* A new path carries the drift over: the new path's first chords, over
 * 21 s of 3 ms of queueing, are weighed against it by their errors, and
 * the rate stays within 0.3 ppm of 30, where those chords alone are a ppm
 * and more off; the error stated is the two weighed together. */
Test(drift, a_new_path_carries_the_drift)
{
    start(7);
    double offset = 0;
    feed(0, 200, steady_30, 300, &offset);
    ts_drift_new_path(&d, 200000000);
    ts_rings_clear(&r);
    cr_assert(isfinite(d.carried.se));
    cr_assert_eq(d.carried.rate, d.freq);
    cr_assert_not(d.long_known);
    cr_assert_eq(d.bend_since, INT64_MIN);
    feed(200, 222, steady_30, 3000, &offset);   /* the new path queues ten times more */
    cr_assert(fabs(d.freq - 30e-6) < 0.3e-6, "%.3f ppm for 30", d.freq * 1e6);
    cr_assert_lt(ts_drift_error(&d), d.line.se, "the error is the two weighed together, under the new line's own");
    double stale = hypot(d.carried.se, 0.05e-6 * 21);   /* carry_wander over the 21 s since the reset */
    cr_assert_lt(ts_drift_error(&d), stale, "%.3f ppm, under the carried %.3f", ts_drift_error(&d) * 1e6, stale * 1e6);
}
