/* tests/test_jitter.c - the queueing a game's messages meet
 * (lib/ticksync/jitter): half the 99th percentile of the last 512 round
 * trips' excess, or of the 97th where the tail is a separate mode of
 * spikes; old excesses leave the window; negatives count as none. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "jitter.h"
#include "tuning.h"

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
    cr_assert_not(j.spiky);
}

Test(jitter, spikes_of_their_own_mode_leave_it_at_the_97th, .init = setup)
{
    for (int i = 0; i < TS_JITTER_N; i++)
        ts_jitter_add(&j, i % 50 == 0 ? 200000 : i % 10);   /* 2 % spikes of 200 ms over 0..9 µs */
    cr_assert_float_eq(j.value, 9.0 / 2, 1e-9, "the 97th (9), not the 99th (200 ms): %g", j.value);
    cr_assert(j.spiky, "a mode of spikes left out");
}

Test(jitter, the_window_forgets_and_negatives_count_as_none, .init = setup)
{
    for (int i = 0; i < TS_JITTER_N; i++)
        ts_jitter_add(&j, 5000);
    cr_assert_float_eq(j.value, 2500, 2500.0 / 4096, "5 ms, coded above 4,095 µs: %g", j.value);
    for (int i = 0; i < TS_JITTER_N; i++)
        ts_jitter_add(&j, i % 2 ? -300 : 40);
    cr_assert_float_eq(j.value, 20, 1e-9, "the 5 ms excesses are gone, the negatives are 0: %g", j.value);
}

/* Excesses are kept in 16 bits: whole µs exact up to 4,095, within 1/4096
 * above, in the same order, and held at TS_JITTER_MAX_US (a round trip
 * the estimator takes is far less). */
Test(jitter, excesses_are_coded_in_order_exact_where_small)
{
    for (int e = 0; e < 4096; e++)
        cr_assert_eq(ts_jitter_decode(ts_jitter_code(e)), e, "exact: %d", e);
    uint16_t last = ts_jitter_code(4095);
    for (double e = 4096; e <= TS_JITTER_MAX_US; e = e * 1.0007 + 1) {
        uint16_t c = ts_jitter_code(e);
        cr_assert(c >= last, "in order at %.0f", e);
        last = c;
        double back = ts_jitter_decode(c), rel = fabs(back - round(e)) / e;
        cr_assert(rel <= 1.0 / 4096, "%.0f comes back as %.1f", e, back);
    }
    cr_assert_eq(ts_jitter_code(1e12), ts_jitter_code(TS_JITTER_MAX_US), "held at the most");
    cr_assert_eq(ts_jitter_code(-300), 0, "a negative excess is none");
}

Test(jitter, a_large_excess_reads_back_within_its_code, .init = setup)
{
    for (int i = 0; i < TS_JITTER_N; i++)
        ts_jitter_add(&j, 200000);   /* a steady 200 ms */
    cr_assert(fabs(j.value - 100000) <= 100000.0 / 4096, "half of 200 ms: %g", j.value);
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

/* The few largest are picked again only when one of them comes or goes:
 * at every exchange of a long heavy-tailed run with spikes, the jitter is
 * what sorting the window's coded excesses says. */
Test(jitter, the_same_as_sorting_the_window_at_every_exchange, .init = setup)
{
    static double ring[TS_JITTER_N], sorted[TS_JITTER_N];
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < 6000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        double u = (double) (x >> 11) / 9007199254740992.0;
        double e = i % 97 == 0 ? 300000 * u : floor(200 / pow(1 - u, 0.7) - 200);   /* Pareto-like, and spikes */
        ts_jitter_add(&j, e);
        ring[i % TS_JITTER_N] = ts_jitter_decode(ts_jitter_code(e));
        int n = i + 1 < TS_JITTER_N ? i + 1 : TS_JITTER_N;
        memcpy(sorted, ring, sizeof sorted);
        qsort(sorted, (size_t) n, sizeof *sorted, by_value);
        double high = sorted[(int) (TS_TUNING.jitter_q * (n - 1))], low = sorted[(int) (TS_TUNING.jitter_q_low * (n - 1))];
        double want = (high > TS_TUNING.spike_ratio * low ? low : high) / 2;
        cr_assert_eq(j.value, want, "exchange %d: %g, sorting says %g", i, j.value, want);
    }
}

Test(jitter, the_share_over_an_excess_counts_the_window, .init = setup)
{
    cr_assert_float_eq(ts_jitter_share_over(&j, 0), 0, 1e-12, "none kept");
    for (int i = 0; i < 100; i++)
        ts_jitter_add(&j, i * 1000);   /* 0..99 ms */
    cr_assert_float_eq(ts_jitter_share_over(&j, 20000), 0.79, 1e-12, "21..99 ms of 100");
    cr_assert_float_eq(ts_jitter_share_over(&j, 99000), 0, 1e-12, "none over the largest");
    cr_assert_float_eq(ts_jitter_share_over(&j, -5), 0.99, 1e-12, "all but the one of 0");
}

Test(jitter, the_shares_over_leave_the_newest_out, .init = setup)
{
    double x[] = { 95000, 50000, 0 }, share[3];
    ts_jitter_shares_over(&j, 0, x, 3, share);
    cr_assert_float_eq(share[0], 1, 1e-12, "none kept: no share can be told");
    for (int i = 0; i < 100; i++)
        ts_jitter_add(&j, i * 1000);   /* 0..99 ms */
    ts_jitter_shares_over(&j, 10, x, 3, share);   /* 0..89 ms counted */
    cr_assert_float_eq(share[0], 1.0 / 90, 1e-12, "none over 95 ms: one in the 90 counted");
    cr_assert_float_eq(share[1], 39.0 / 90, 1e-12, "51..89 ms");
    cr_assert_float_eq(share[2], 89.0 / 90, 1e-12, "all but the one of 0");
    ts_jitter_shares_over(&j, 0, x, 3, share);
    for (int i = 0; i < 3; i++)
        cr_assert_float_eq(share[i], fmax(ts_jitter_share_over(&j, x[i]), 0.01), 1e-12, "as share_over, %d", i);
}

Test(jitter, a_queues_excesses_leave_the_shares_and_keep_the_value, .init = setup)
{
    for (int i = 0; i < 100; i++)
        ts_jitter_add(&j, i < 90 ? 1000 : 30000);   /* 90 of 1 ms, then a queue's 10 of 30 ms */
    double value = j.value, x[] = { 5000 }, share[1];
    ts_jitter_shares_over(&j, 0, x, 1, share);
    cr_assert_float_eq(share[0], 0.1, 1e-12);
    ts_jitter_mark_queued(&j, 10);
    ts_jitter_shares_over(&j, 0, x, 1, share);
    cr_assert_float_eq(share[0], 1.0 / 90, 1e-12, "none of the 90 left over 5 ms");
    cr_assert_eq(j.value, value, "the lead still covers the queue");
    for (int i = 0; i < TS_JITTER_N; i++)
        ts_jitter_add(&j, i % 2 ? 1000 : 30000);   /* the ring turned over: the marks with it */
    ts_jitter_shares_over(&j, 0, x, 1, share);
    cr_assert_float_eq(share[0], 0.5, 1e-12);
}
