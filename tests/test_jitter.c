/* tests/test_jitter.c - the queueing a game's messages meet
 * (lib/ticksync/jitter): half the 99th percentile of the last 512 round
 * trips' excess, or of the 97th where the tail is a separate mode of
 * spikes; old excesses leave the window; negatives count as none. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "jitter.h"

static ts_jitter_t j;

static void setup(void)
{
    memset(&j, 0, sizeof j);
}

Test(jitter, half_the_99th_percentile_of_a_tail_of_one_piece, .init = setup)
{
    for (int i = 0; i < TS_JITTER_N; i++)
        ts_jitter_add(&j, i % 100);   /* 0..99, evenly */
    cr_assert_float_eq(j.value, 98.0 / 2, 1e-9, "the 99th of 0..99 is 98: %g", j.value);
}

Test(jitter, spikes_of_their_own_mode_leave_it_at_the_97th, .init = setup)
{
    for (int i = 0; i < TS_JITTER_N; i++)
        ts_jitter_add(&j, i % 50 == 0 ? 200000 : i % 10);   /* 2 % spikes of 200 ms over 0..9 µs */
    cr_assert_float_eq(j.value, 9.0 / 2, 1e-9, "the 97th (9), not the 99th (200 ms): %g", j.value);
}

Test(jitter, the_window_forgets_and_negatives_count_as_none, .init = setup)
{
    for (int i = 0; i < TS_JITTER_N; i++)
        ts_jitter_add(&j, 5000);
    cr_assert_float_eq(j.value, 2500, 1e-9);
    for (int i = 0; i < TS_JITTER_N; i++)
        ts_jitter_add(&j, i % 2 ? -300 : 40);
    cr_assert_float_eq(j.value, 20, 1e-9, "the 5 ms excesses are gone, the negatives are 0: %g", j.value);
    for (int i = 0; i < TS_JITTER_N; i++)
        cr_assert(j.sorted[i] >= 0 && (i == 0 || j.sorted[i] >= j.sorted[i - 1]), "kept sorted");
}

/* Excesses are whole µs kept in floats: exact up to TS_JITTER_MAX_US, and
 * held at it past (a round trip the estimator takes is far less). */
Test(jitter, excesses_are_kept_whole_and_held_at_the_most, .init = setup)
{
    ts_jitter_add(&j, 16777215);
    ts_jitter_add(&j, 1e12);
    ts_jitter_add(&j, 3);
    cr_assert_eq(j.sorted[0], 3.0f);
    cr_assert_eq(j.sorted[1], 16777215.0f, "whole up to 2^24");
    cr_assert_eq(j.sorted[2], (float) TS_JITTER_MAX_US, "held at the most");
}
