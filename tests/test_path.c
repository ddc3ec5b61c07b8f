/* tests/test_path.c - a new path as the round trips tell it
 * (lib/ticksync/path): how many rises in a row the path's own queueing
 * asks for; a run of rises over the filter's least, kept against the least
 * as it was at the run's first and broken by one round trip under it; and
 * the filter's least risen above the ways', which a route longer by about
 * the outlier limit gives and one path's queueing does not. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "path.h"
#include "ringfeed.h"
#include "tuning.h"

/* A jitter whose kept excesses pass over_us in share of them. */
static void jitter_with(ts_jitter_t *j, double share, double over_us)
{
    *j = (ts_jitter_t) { 0 };
    for (int i = 0; i < TS_JITTER_N; i++)
        ts_jitter_add(j, i < share * TS_JITTER_N ? 2 * over_us : over_us / 4);
}

Test(path, the_rises_needed_are_as_many_as_the_queueing_makes_rare)
{
    ts_jitter_t j;
    jitter_with(&j, 0, 20000);
    cr_assert_eq(ts_path_rises_needed(&j, 20000, 6), 6, "a clean path: the count");
    jitter_with(&j, 0.25, 20000);
    /* 0.25^10 = 9.5e-7 is the first at most 1e-6 */
    cr_assert_eq(ts_path_rises_needed(&j, 20000, 6), 10);
    cr_assert_eq(ts_path_rises_needed(&j, 60000, 6), 6, "over a least the queueing never passes: the count");
    jitter_with(&j, 1, 20000);
    cr_assert_eq(ts_path_rises_needed(&j, 20000, 6), TS_TUNING.rises_max, "queueing that always passes: the most");
}

/* The estimator's outlier limit at its defaults (max_delay_dev_ratio 10). */
static double limit(const ts_filter_t *f)
{
    return ts_filter_outlier_limit(f, 10, TS_TUNING.dev_floor_us);
}

static ts_filter_t filter_of(int n, int64_t delay)
{
    ts_filter_t f;
    ts_filter_init(&f, 8);
    for (int i = 0; i < n; i++)
        ts_filter_add(&f, &(ts_sample_t) { .local = i, .offset = 0, .delay = delay });
    return f;
}

Test(path, a_run_of_rises_is_a_new_path_and_a_round_trip_under_breaks_it)
{
    ts_jitter_t j;
    jitter_with(&j, 0, 1000);
    ts_filter_t f = filter_of(8, 40000);   /* no spread: an outlier limit of 10 x 500 us */
    ts_path_t p;
    ts_path_clear(&p);
    for (int i = 0; i < 5; i++)
        cr_assert_not(ts_path_rise(&p, &f, &j, 46000, 20000, limit(&f), 6), "rise %d of 6", i + 1);
    cr_assert_not(ts_path_rise(&p, &f, &j, 44000, 20000, limit(&f), 6), "under the outlier limit: the run ends");
    for (int i = 0; i < 5; i++)
        cr_assert_not(ts_path_rise(&p, &f, &j, 46000, 20000, limit(&f), 6));
    cr_assert(ts_path_rise(&p, &f, &j, 46000, 20000, limit(&f), 6), "the sixth in a row");
}

Test(path, a_run_is_held_to_the_least_at_its_first)
{
    ts_jitter_t j;
    jitter_with(&j, 0, 1000);
    ts_filter_t f = filter_of(8, 40000);
    ts_path_t p;
    ts_path_clear(&p);
    for (int i = 0; i < 5; i++) {
        cr_assert_not(ts_path_rise(&p, &f, &j, 70000, 20000, limit(&f), 6));
        /* the new route's samples fill the filter, its least rising to theirs */
        ts_filter_add(&f, &(ts_sample_t) { .local = 100 + i, .offset = 0, .delay = 70000 });
    }
    for (int i = 0; i < 3; i++)
        ts_filter_add(&f, &(ts_sample_t) { .local = 200 + i, .offset = 0, .delay = 70000 });
    cr_assert_eq(ts_filter_min_delay(&f), 70000);
    cr_assert(ts_path_rise(&p, &f, &j, 70000, 20000, limit(&f), 6), "still over the least of the run's first");
}

Test(path, a_filter_not_yet_full_or_without_spread_tells_no_rise_it_cannot)
{
    ts_jitter_t j;
    jitter_with(&j, 0, 1000);
    ts_filter_t f = filter_of(2, 40000);   /* too few for an outlier limit: path_change_us alone */
    ts_path_t p;
    ts_path_clear(&p);
    for (int i = 0; i < 10; i++)
        cr_assert_not(ts_path_rise(&p, &f, &j, 59000, 20000, limit(&f), 6), "under path_change_us");
}

/* A jitter of n round trips' excesses, each way queueing exponentially,
 * 1 ms on average. */
static void queueing_of(ts_jitter_t *j, int n)
{
    *j = (ts_jitter_t) { 0 };
    for (int i = 0; i < n; i++)
        ts_jitter_add(j, ringfeed_queueing(1000) + ringfeed_queueing(1000));
}

/* A path of 40 ms whose round trips queue exponentially, 1 ms each way
 * on average: the filter at its floor and the jitter from 512 of them. */
static void queueing_path(ts_filter_t *f, ts_jitter_t *j)
{
    *f = filter_of(8, 40000);
    queueing_of(j, TS_JITTER_N);
}

/* The rise at which a run of round trips, the i-th (from 0) 40 ms plus
 * over(i) plus the path's queueing, is a new path, fed as the estimator
 * feeds them (the rise rule, then the jitter); 0 if none of the first
 * most is. */
static int path_at(double (*over)(int), int most)
{
    ts_filter_t f;
    ts_jitter_t j;
    queueing_path(&f, &j);
    ts_path_t p;
    ts_path_clear(&p);
    for (int i = 0; i < most; i++) {
        int64_t delay = llround(40000 + over(i) + ringfeed_queueing(1000) + ringfeed_queueing(1000));
        if (ts_path_rise(&p, &f, &j, delay, 20000, limit(&f), 6))
            return i + 1;
        ts_jitter_add(&j, (double) (delay - ts_filter_min_delay(&f)));
    }
    return 0;
}

static double route_30ms(int i)
{
    (void) i;
    return 30000;
}

static double queue_15_to_30ms(int i)
{
    (void) i;
    return 15000 + 15000 * (rand() / (double) RAND_MAX);
}

static double spike_then_route(int i)
{
    return i == 0 ? 10000 : 60000;
}

Test(path, a_route_is_a_new_path_and_a_queue_that_spreads_is_held)
{
    int route_at_count = 0, route_late = 0, queue_held = 0, queue_at_most = 0, spike_next = 0;
    for (unsigned seed = 1; seed <= 200; seed++) {
        srand(seed);
        int at = path_at(route_30ms, TS_TUNING.rises_max);
        route_at_count += at == 6;
        route_late += at == 0 || at > 8;
        queue_held += path_at(queue_15_to_30ms, 20) == 0;
        queue_at_most += path_at(queue_15_to_30ms, TS_TUNING.rises_max) == TS_TUNING.rises_max;
        spike_next += path_at(spike_then_route, 7) == 7;
    }
    cr_log_info("route at its count %d, late %d; queue held %d, taken at the most %d; spike %d (of 200)",
                route_at_count, route_late, queue_held, queue_at_most, spike_next);
    /* 198, 1; 164, 144; 198 when written (queue_odds 1 %) */
    cr_assert_geq(route_at_count, 190, "a route longer by 30 ms with the path's queueing: %d of 200 at 6",
                  route_at_count);
    cr_assert_leq(route_late, 3, "... past the eighth rise: %d", route_late);
    cr_assert_geq(queue_held, 150, "rises spread over 15 ms: a queue, held through 20 in %d of 200", queue_held);
    cr_assert_geq(queue_at_most, 120, "... and through to the most, a new path there: %d", queue_at_most);
    cr_assert_geq(spike_next, 190, "a spike opened the run: held while it is among the newest six, %d of 200",
                  spike_next);
}

/* A run taken for a new path sat over the old path's least by the route's
 * move (or a queue's): none of it is the path's own queueing, which the
 * next run is read against. */
Test(path, a_run_taken_for_a_new_path_leaves_the_paths_law_as_it_was)
{
    srand(7);
    ts_filter_t f = filter_of(8, 40000);
    ts_jitter_t j;
    queueing_of(&j, TS_JITTER_N / 2);   /* (room for the run: none of the path's leaves) */
    const double x[3] = { 25000, 5000, 2000 };
    double before[3], after[3];
    ts_jitter_shares_over(&j, 0, x, 3, before);
    ts_path_t p;
    ts_path_clear(&p);
    int taken = 0;
    for (int i = 0; i < 10 && !taken; i++) {
        int64_t delay = llround(70000 + ringfeed_queueing(1000) + ringfeed_queueing(1000));
        if (ts_path_rise(&p, &f, &j, delay, 20000, limit(&f), 6))
            taken = i + 1;
        else   /* (the estimator starts the new path's filter empty: the last rise is noted nowhere) */
            ts_jitter_add(&j, (double) (delay - ts_filter_min_delay(&f)));
    }
    cr_assert_eq(taken, 6, "a route 30 ms longer, taken at its sixth rise");
    ts_jitter_shares_over(&j, 0, x, 3, after);
    for (int k = 0; k < 3; k++)
        cr_assert_float_eq(after[k], before[k], 1e-12, "share over %.0f us: %g, was %g", x[k], after[k], before[k]);
}

/* A queue's run, one of whose round trips the filter lets in (as a path
 * whose outlier limit is wide, a bimodal one's, does): it pushes the
 * filter's oldest, its least, out, and the least moves 200 us, to
 * another of the path's own samples. The run's rises are still over the
 * path's samples, not let in as a longer route's are, and still held as
 * a queue's. */
Test(path, a_queue_is_held_though_the_filters_least_moves_under_it)
{
    int held = 0;
    for (unsigned seed = 1; seed <= 200; seed++) {
        srand(seed);
        ts_filter_t f;
        ts_filter_init(&f, 8);
        for (int i = 0; i < 8; i++)   /* the least, 40 ms, the oldest */
            ts_filter_add(&f, &(ts_sample_t) { .local = i, .offset = 0, .delay = 40000 + 200 * i });
        ts_jitter_t j;
        queueing_of(&j, TS_JITTER_N);
        ts_path_t p;
        ts_path_clear(&p);
        bool taken = false;
        for (int i = 0; i < 20 && !taken; i++) {
            int64_t delay = llround(40000 + queue_15_to_30ms(i) + ringfeed_queueing(1000) + ringfeed_queueing(1000));
            taken = ts_path_rise(&p, &f, &j, delay, 20000, limit(&f), 6);
            if (i == 8)
                ts_filter_add(&f, &(ts_sample_t) { .local = 100, .offset = 0, .delay = delay });
            ts_jitter_add(&j, (double) (delay - ts_filter_min_delay(&f)));
        }
        held += !taken;
    }
    cr_log_info("a queue held through 20 rises, the filter's least moved 200 us at the ninth: %d of 200", held);
    cr_assert_geq(held, 150, "%d of 200", held);
}

static double route_30ms_queueing_5x(int i)
{
    (void) i;   /* the path's 1 ms each way is drawn too: 4 ms more each way makes 5 */
    return 30000 + ringfeed_queueing(4000) + ringfeed_queueing(4000);
}

Test(path, a_route_whose_queueing_is_wider_waits_but_never_past_the_most)
{
    int held_past_30 = 0, never = 0;
    for (unsigned seed = 1; seed <= 200; seed++) {
        srand(seed);
        int at = path_at(route_30ms_queueing_5x, TS_TUNING.rises_max + 1);
        held_past_30 += at == 0 || at > 30;
        never += at == 0;
    }
    cr_log_info("a route with 5 times the queueing: held past 30 rises in %d of 200", held_past_30);
    cr_assert_eq(never, 0, "a new path at rises_max at the latest, whatever its shape");
}

/* A path's samples at seconds from..to, each way base_us plus exponential
 * queueing of q µs, fed to the rings, the drift, the level and the filter
 * as the estimator feeds them; true when the filter's least was once read
 * as risen. */
static bool feed(ts_rings_t *r, ts_drift_t *d, ts_level_t *l, ts_filter_t *f, int from, int to, double base_us,
                 double q)
{
    bool risen = false;
    for (int i = from; i < to; i++) {
        double up = base_us + ringfeed_queueing(q), down = base_us + ringfeed_queueing(q);
        int64_t delay = llround(up + down);
        ts_sample_t s = { .local = (int64_t) i * 1000000, .offset = 3000 + up - 0.5 * (double) delay, .delay = delay };
        int64_t least = ts_filter_min_delay(f);
        ts_filter_add(f, &s);
        ringfeed(r, d, &s, 0.5);
        ts_level_update(l, r, d, INT64_MIN);
        if (ts_filter_min_delay(f) > least)
            risen |= ts_path_filter_risen(f, r, l, d, 4000);
    }
    return risen;
}

Test(path, the_filters_least_risen_above_the_ways_is_a_longer_route)
{
    static ts_rings_t r;
    ts_drift_t d;
    ts_level_t l;
    ts_filter_t f;
    for (unsigned seed = 1; seed <= 5; seed++) {
        srand(seed);
        ts_rings_init(&r, 64);
        ts_drift_init(&d, 20000000);
        ts_level_init(&l, 0.5);
        ts_filter_init(&f, 8);
        cr_assert_not(feed(&r, &d, &l, &f, 0, 3000, 20000, 1000), "one path's queueing, seed %u", seed);
        cr_assert(feed(&r, &d, &l, &f, 3000, 3008, 26000, 1000), "a route 12 ms longer, seed %u", seed);
    }
}
