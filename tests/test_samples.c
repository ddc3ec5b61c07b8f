/* tests/test_samples.c - the clock filter (lib/ticksync/samples): the
 * least-delayed of the last few samples is chosen (the latest of equal
 * ones), a chosen sample that leaves the ring is chosen again from what
 * stays, the delays' spread and the outlier limit it sets, a server step
 * moving every offset. */
#include <criterion/criterion.h>
#include <math.h>

#include "samples.h"

static ts_sample_t at(int64_t local, int64_t delay)
{
    return (ts_sample_t) { .local = local, .offset = 1000, .delay = delay };
}

Test(samples, the_least_delayed_is_chosen_and_chosen_again_as_the_ring_turns)
{
    ts_filter_t f;
    ts_filter_init(&f, 3);
    cr_assert_null(ts_filter_chosen(&f));
    cr_assert_eq(ts_filter_min_delay(&f), 0);
    ts_filter_add(&f, &(ts_sample_t) { 1, 0, 30000 });
    ts_sample_t s = at(2, 20000);
    ts_filter_add(&f, &s);
    s = at(3, 20000);
    ts_filter_add(&f, &s);
    cr_assert_eq(ts_filter_chosen(&f)->local, 3, "of equal delays, the latest");
    s = at(4, 25000);
    ts_filter_add(&f, &s);   /* 1 leaves */
    cr_assert_eq(ts_filter_min_delay(&f), 20000);
    s = at(5, 26000);
    ts_filter_add(&f, &s);   /* 2 leaves */
    s = at(6, 27000);
    ts_filter_add(&f, &s);   /* 3, the chosen, leaves */
    cr_assert_eq(ts_filter_chosen(&f)->local, 4, "chosen again from what stays");
    ts_filter_clear(&f);
    cr_assert_null(ts_filter_chosen(&f));
    cr_assert_eq(f.n, 0);
}

Test(samples, the_spread_and_the_outlier_limit)
{
    ts_filter_t f;
    ts_filter_init(&f, 8);
    const int64_t d[] = { 10000, 12000, 14000, 16000 };
    for (int i = 0; i < 3; i++) {
        ts_sample_t s = at(i, d[i]);
        ts_filter_add(&f, &s);
    }
    cr_assert(isinf(ts_filter_outlier_limit(&f, 10, 500)), "no limit before 4 samples");
    ts_sample_t s = at(3, d[3]);
    ts_filter_add(&f, &s);
    double sd = sqrt((9.0 + 1 + 1 + 9) / 4) * 1000;   /* 2236 us */
    cr_assert_float_eq(ts_filter_spread(&f), sd, 1e-6);
    cr_assert_float_eq(ts_filter_outlier_limit(&f, 10, 500), 10 * sd, 1e-6);
    cr_assert_float_eq(ts_filter_outlier_limit(&f, 10, 5000), 50000, 1e-6, "at least ratio x floor");
    ts_filter_move_before(&f, -250, 2);
    for (int i = 0; i < f.n; i++)
        cr_assert_float_eq(f.s[i].offset, f.s[i].local < 2 ? 750 : 1000, 1e-9,
                           "a server step moves the offsets from before it, and only those");
}
