/* tests/test_rtt.c - lib/rtt: RFC 6298 arithmetic and PROTOCOL's validity rules. */
#include <criterion/criterion.h>

#include "rtt.h"

Test(rtt, first_sample_sets_srtt_and_half_rttvar)
{
    ts_rtt_t r = { 0 };
    ts_rtt_update(&r, 40000);
    cr_assert_eq(ts_rtt_srtt(&r), 40000);
    cr_assert_eq(ts_rtt_rttvar(&r), 20000);
}

Test(rtt, later_samples_use_gains_one_eighth_and_one_quarter)
{
    ts_rtt_t r = { 0 };
    ts_rtt_update(&r, 40000);
    ts_rtt_update(&r, 48000);
    /* rttvar = 3/4 * 20000 + 1/4 * |40000 - 48000| = 17000; srtt = 7/8 * 40000 + 1/8 * 48000 = 41000 */
    cr_assert_eq(ts_rtt_rttvar(&r), 17000);
    cr_assert_eq(ts_rtt_srtt(&r), 41000);
    cr_assert_eq(r.min_rtt, 40000);
    cr_assert_eq(r.last, 48000);
}

Test(rtt, converges_exactly_on_a_constant_input)
{
    ts_rtt_t r = { 0 };
    ts_rtt_update(&r, 1000);
    for (int i = 0; i < 200; i++)
        ts_rtt_update(&r, 50007);
    cr_assert_eq(ts_rtt_srtt(&r), 50007);
}

Test(rtt, turnaround_is_removed)
{
    cr_assert_eq(ts_rtt_sample(30000, 100, 5100), 25000);
    cr_assert_eq(ts_rtt_sample(30000, 100, 100), 30000);
}

Test(rtt, negative_or_oversized_turnaround_is_invalid)
{
    cr_assert_eq(ts_rtt_sample(30000, 200, 100), -1);
    cr_assert_eq(ts_rtt_sample(30000, 0, 30001), -1);
    cr_assert_eq(ts_rtt_sample(30000, INT64_MIN, INT64_MAX), -1);
    cr_assert_eq(ts_rtt_sample(30000, 0, 30000), 0);
}

Test(rtt, restore_carries_on)
{
    ts_rtt_t r = { 0 };
    ts_rtt_restore(&r, 41000, 17000, 40000, 48000);
    ts_rtt_update(&r, 41000);
    cr_assert_eq(ts_rtt_srtt(&r), 41000);
    cr_assert_eq(ts_rtt_rttvar(&r), 12750);
}
