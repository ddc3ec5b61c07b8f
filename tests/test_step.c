/* tests/test_step.c - a server step as the samples tell it
 * (lib/ticksync/step): the step read half-way between the two ways' least
 * residuals, taken no further than twice what they prove; read again by
 * the samples after it, each reading moving the history by its change,
 * and a reading past the first two's agreement left; a sample queued past
 * a clear step held, or any within both edges while a shorter route is
 * held, dropped at most step_waits times, and never for a held outlier or
 * a step the model's error could give; and the path's
 * first ways tested against the edges of the ways after them. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "ringfeed.h"
#include "step.h"
#include "tuning.h"

Test(step, the_estimate_is_half_way_and_at_most_twice_what_is_proven)
{
    /* +10 ms: the way up 10 ms above its edge, the way down 10 ms below */
    cr_assert_float_eq(ts_step_estimate(10000, -10000), 10000, 1e-9);
    cr_assert_float_eq(ts_step_estimate(-10000, 10000), -10000, 1e-9);
    /* each way's least queueing moves the half-way point by half of it */
    cr_assert_float_eq(ts_step_estimate(10400, -9800), 10100, 1e-9);
    /* +1.7 ms whose raised way queued 19 ms: half-way says 11.2 ms, the
     * lowered way proves 1.7, so no more than 3.4 is taken */
    cr_assert_float_eq(ts_step_estimate(1700 + 19000, -1700), 3400, 1e-9);
    cr_assert_float_eq(ts_step_estimate(-1700 + 300, 1700 + 300), -1700, 1e-9);
    /* a lowered way that proves nothing: no step taken */
    cr_assert_float_eq(ts_step_estimate(5000, 1000), 0, 1e-9);
}

Test(step, readings_agree_within_half_their_queueing_and_a_clear_step_stands_out)
{
    cr_assert_float_eq(ts_step_agreement(4000, 1000, 3000), 6000, 1e-9);
    cr_assert_float_eq(ts_step_agreement(4000, -500, 3000), 5500, 1e-9, "a negative excess counts as none");
    cr_assert(ts_step_clear_of(10000, 2000, 4000), "10 ms, at least 9, over 2 x 4 ms");
    cr_assert_not(ts_step_clear_of(10000, 6000, 4000), "at least 7 ms: not over 8");
    cr_assert(ts_step_clear_of(-10000, 0, 4000), "either sign");
}

/* Edges of a path 20 ms each way at a zero offset and drift, the way up
 * taking half of the round trip. */
static ts_level_t edges(void)
{
    ts_level_t l;
    ts_level_init(&l, 0.5);
    l.edges = true;
    l.edge_up = 20000;
    l.edge_down = 20000;
    return l;
}

/* A sample at local us, the server's time offset by offset, each way
 * queueing q_up and q_down over the 20 ms of edges(). */
static ts_sample_t sample(int64_t local, double offset, double q_up, double q_down)
{
    double up = 20000 + q_up, down = 20000 + q_down, delay = up + down;
    return (ts_sample_t) { .local = local, .offset = offset + up - 0.5 * delay, .delay = llround(delay) };
}

Test(step, the_samples_after_a_step_read_it_again_and_move_the_history_by_each_change)
{
    ts_level_t before = edges();
    ts_step_t st;
    ts_step_clear(&st);
    double move = 0, moved = 0;
    ts_sample_t s = sample(1000000, 10000, 3000, 0);
    cr_assert_not(ts_step_read(&st, &s, 20e6, 4000, &move), "no step yet");
    ts_step_start(&st, 1000000, &before);
    cr_assert(ts_step_read(&st, &s, 20e6, 4000, &move));
    moved += move;
    s = sample(2000000, 10000, 800, 2000);
    cr_assert(ts_step_read(&st, &s, 20e6, 4000, &move));
    moved += move;
    /* the two read 11.5 ms (queued 3 ms) and 9.4 ms (2.8 ms): the step is
     * within 10-10.8 ms, and 6-14.8 ms with the model's 4 ms */
    ts_step_settle(&st, 4000, 11500, 3000, 9400, 2800);
    cr_assert_float_eq(moved, 10400, 1e-9, "half-way between 10.8 and -10: %.1f", moved);
    s = sample(3000000, 10000, 0, 0);
    cr_assert(ts_step_read(&st, &s, 20e6, 4000, &move));
    moved += move;
    cr_assert_float_eq(moved, 10000, 1e-9, "a sample queued neither way reads it exactly");
    cr_assert_float_eq(st.stepped, moved, 1e-9);
    s = sample(4000000, 10000, 0, 0);
    cr_assert_not(ts_step_read(&st, &s, 20e6, 4000, &move), "the same reading moves nothing");
    s = sample(4500000, -2000, 0, 0);
    cr_assert_not(ts_step_read(&st, &s, 20e6, 4000, &move),
                  "a second step of -12 ms reads 4 ms, within the two's agreement of 10.4 +- 6.9 ms "
                  "but out of where both put the step: left");
    s = sample(5000000, 181000, 0, 0);
    cr_assert_not(ts_step_read(&st, &s, 20e6, 4000, &move), "a second step, far past the agreement, is left");
    cr_assert_float_eq(st.stepped, 10000, 1e-9);
    s = sample(1000000 + 20000000, 9000, 0, 0);
    cr_assert_not(ts_step_read(&st, &s, 20e6, 4000, &move), "past the span the ways since the step serve");
}

Test(step, each_sample_read_again_narrows_where_the_step_can_be)
{
    ts_level_t before = edges();
    ts_step_t st;
    ts_step_clear(&st);
    double move = 0;
    ts_step_start(&st, 1000000, &before);
    /* a +10 ms step read by two samples queued 3 + 3 ms and 2 + 2 ms:
     * within 7-13 and 8-12 ms, 4-16 ms with the model's 4 ms */
    ts_sample_t s = sample(1000000, 10000, 3000, 3000);
    cr_assert(ts_step_read(&st, &s, 20e6, 4000, &move));
    s = sample(1100000, 10000, 2000, 2000);
    cr_assert_not(ts_step_read(&st, &s, 20e6, 4000, &move), "the second reads the same 10 ms");
    ts_step_settle(&st, 4000, 10000, 6000, 10000, 4000);
    cr_assert_float_eq(st.read_lo, 4000, 1e-9);
    cr_assert_float_eq(st.read_hi, 16000, 1e-9);
    cr_assert_float_eq(st.stepped, 10000, 1e-9);
    s = sample(2000000, 10000, 0, 0);
    cr_assert_not(ts_step_read(&st, &s, 20e6, 4000, &move), "read exactly again: no move");
    cr_assert_float_eq(st.read_lo, 6000, 1e-9, "a sample queued neither way puts the step at 6-14 ms: %.1f",
                       st.read_lo);
    cr_assert_float_eq(st.read_hi, 14000, 1e-9);
    s = sample(3000000, 0, 0, 0);
    cr_assert_not(ts_step_read(&st, &s, 20e6, 4000, &move),
                  "a second step of -10 ms reads 5 ms: within where the two first put the step, "
                  "not where the third does: left");
    cr_assert_float_eq(st.stepped, 10000, 1e-9);
}

Test(step, a_sample_that_tells_neither_way_is_dropped_a_few_times)
{
    ts_level_t l = edges();
    ts_step_t st;
    ts_step_clear(&st);
    ts_sample_t first = sample(0, 10000, 0, 0);
    ts_step_hold(&st, &first, 10000, 0, false, false, 1000);
    /* the lowered way (down) queued 12 ms, past the step: within both edges */
    ts_sample_t queued = sample(1000000, 10000, 0, 12000);
    cr_assert(ts_step_still(&st, &l, &queued, 4000));
    ts_sample_t none = sample(1000000, 0, 500, 500);
    cr_assert_not(ts_step_still(&st, &l, &none, 4000), "its raised way not raised: no step");
    st.held_waits = TS_TUNING.step_waits;
    cr_assert_not(ts_step_still(&st, &l, &queued, 4000), "at most step_waits");
    ts_step_hold(&st, &first, 10000, 0, false, true, 1000);
    cr_assert_not(ts_step_still(&st, &l, &queued, 4000), "not for a held outlier");
    ts_step_hold(&st, &first, 10000, 0, false, false, 6000);
    cr_assert_not(ts_step_still(&st, &l, &queued, 4000), "not for a step within clear_k limits");
    /* a shorter route: no sample within both edges tells it was none */
    ts_step_hold(&st, &first, 0, 0, true, false, 1000);
    cr_assert(ts_step_still(&st, &l, &none, 4000), "a shorter route waits through any");
    st.held_waits = TS_TUNING.step_waits;
    cr_assert_not(ts_step_still(&st, &l, &none, 4000), "at most step_waits");
}

/* The path's first 16 ways, a server step of step_us after the 8th (or,
 * lone, the 4th and the 6th alone off by it), fed as the estimator feeds them. */
static bool first_ways_with(double step_us, bool lone, unsigned seed)
{
    static ts_rings_t r;
    ts_drift_t d;
    ts_level_t l;
    ts_step_t st;
    srand(seed);
    ts_rings_init(&r, 64);
    ts_drift_init(&d, 20000000);
    ts_level_init(&l, 0.5);
    ts_step_clear(&st);
    for (int i = 0; i < 2 * TS_TUNING.ways_min; i++) {
        double offset = (lone ? i == 3 || i == 5 : i >= TS_TUNING.ways_min) ? step_us : 0;
        ts_sample_t s = sample((int64_t) i * 100000, offset, ringfeed_queueing(300), ringfeed_queueing(300));
        ringfeed(&r, &d, &s, 0.5);
        ts_level_update(&l, &r, &d, INT64_MIN);
    }
    return ts_step_in_first_ways(&st, &r, &l, &d, 0.5, 4000);
}

Test(step, the_first_ways_are_tested_against_the_edges_of_the_ways_after_them)
{
    for (unsigned seed = 1; seed <= 10; seed++) {
        cr_assert_not(first_ways_with(0, false, seed), "no step, seed %u", seed);
        cr_assert(first_ways_with(30000, false, seed), "+30 ms, seed %u", seed);
        cr_assert(first_ways_with(-30000, false, seed), "-30 ms, seed %u", seed);
        cr_assert_not(first_ways_with(30000, true, seed), "two ways not in a row are no step, seed %u", seed);
    }
}
