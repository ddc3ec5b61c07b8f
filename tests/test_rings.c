/* tests/test_rings.c - what the estimator keeps (lib/ticksync/rings): the
 * rings read oldest first as they turn; a sample's two one-way
 * measurements as the delay's split puts them; a block holds each way's
 * least of TS_RINGS_BLOCK; the origin moves on through hours of samples
 * without losing a µs of a server time near 1.7e15 or more than the 54
 * minutes kept; a server step moves the offsets from before it. */
#include <criterion/criterion.h>
#include <math.h>

#include "rings.h"

static ts_rings_t r;

/* A sample at local (seconds) of a path 20 ms each way, offset 5 ms. */
static ts_sample_t sample(int i)
{
    return (ts_sample_t) { .local = i * 1000000LL, .offset = 5000, .delay = 40000 };
}

Test(rings, entries_read_oldest_first_as_the_ring_turns)
{
    ts_rings_init(&r, 64);
    for (int i = 0; i < 200; i++) {
        ts_sample_t s = sample(i);
        ts_rings_follow(&r, s.local, s.offset);
        ts_rings_add_ways(&r, &s, 0.5, 0);
        ts_rings_add_point(&r, &s);
    }
    cr_assert_eq(r.nways, TS_RINGS_WAYS);
    cr_assert_eq(ts_rings_local(&r, ts_rings_way(&r, 0)->local), (200 - TS_RINGS_WAYS) * 1000000LL);
    cr_assert_eq(ts_rings_local(&r, ts_rings_way(&r, r.nways - 1)->local), 199 * 1000000LL);
    cr_assert_eq(r.npoints, 64);
    cr_assert_eq(ts_rings_local(&r, ts_rings_point(&r, 0)->local), 136 * 1000000LL);
    cr_assert_eq(ts_rings_ways_from(&r, 150 * 1000000LL), 150 - (200 - TS_RINGS_WAYS));
    cr_assert_eq(ts_rings_ways_from(&r, 150 * 1000000LL + 1), 151 - (200 - TS_RINGS_WAYS));
    cr_assert_eq(ts_rings_ways_from(&r, INT64_MIN), 0);
    cr_assert_eq(ts_rings_ways_from(&r, INT64_MAX), r.nways);
    ts_rings_clear(&r);
    cr_assert(r.nways == 0 && r.npoints == 0 && r.nblocks == 0);
}

/* up = offset + the way up, down = the way down - offset, the delay split
 * as up_fraction says. */
Test(rings, a_samples_ways_split_its_delay_as_told)
{
    ts_rings_init(&r, 64);
    ts_sample_t s = { .local = 7, .offset = 1000, .delay = 40000 };
    ts_rings_follow(&r, s.local, s.offset);
    ts_rings_add_ways(&r, &s, 0.25, 0);
    const ts_way_t *w = ts_rings_way(&r, 0);
    cr_assert_float_eq(w->up + r.origin_offset, 1000 + 10000, 1e-6);
    cr_assert_float_eq(w->down - r.origin_offset, 30000 - 1000, 1e-6);
}

/* Each block holds each way's least of its TS_RINGS_BLOCK ways, with its
 * time; detrended along the slope given, so a way falling at that slope
 * keeps its first. */
Test(rings, a_block_holds_each_ways_least)
{
    ts_rings_init(&r, 64);
    bool closed = false;
    for (int i = 0; i < TS_RINGS_BLOCK; i++) {
        double q_up = i == 3 ? 0 : 500, q_down = i == 5 ? 0 : 700;
        ts_sample_t s = { .local = i * 1000000LL, .offset = (q_up - q_down) / 2,
                          .delay = (int64_t) (40000 + q_up + q_down) };
        ts_rings_follow(&r, s.local, s.offset);
        cr_assert_not(closed, "no block before the %dth way", TS_RINGS_BLOCK);
        closed = ts_rings_add_ways(&r, &s, 0.5, 0);
    }
    cr_assert(closed);
    cr_assert_eq(r.nblocks, 1);
    const ts_block_t *b = ts_rings_block(&r, 0);
    cr_assert_eq(ts_rings_local(&r, b->t_up), 3000000);
    cr_assert_eq(ts_rings_local(&r, b->t_down), 5000000);
    cr_assert_float_eq(b->up + r.origin_offset, 20000, 1e-3);
    cr_assert_float_eq(b->down - r.origin_offset, 20000, 1e-3);
    cr_assert_eq(ts_block_time(b), b->t_up);
    ts_rings_clear_blocks(&r);
    cr_assert_eq(r.nblocks, 0);
    cr_assert_eq(r.nways, TS_RINGS_BLOCK, "the ways stay");
}

/* Eight hours at one sample every 20 s against a server counting from
 * 1970 (1.7e15 µs) and a clock 30 ppm slow: every way kept reads the true
 * offset within a µs, and the oldest kept is 54 to 72 minutes old. */
Test(rings, the_origin_moves_on_without_losing_a_microsecond)
{
    ts_rings_init(&r, 64);
    const double base = 1.7e15;
    for (int64_t t = 0; t <= 8 * 3600 * 1000000LL; t += 20000000) {
        ts_sample_t s = { .local = t, .offset = base + 30e-6 * (double) t, .delay = 40000 };
        ts_rings_follow(&r, s.local, s.offset);
        ts_rings_add_ways(&r, &s, 0.5, 0);
        ts_rings_add_point(&r, &s);
        for (int i = 0; i < r.nways; i++) {
            const ts_way_t *w = ts_rings_way(&r, i);
            double offset = base + 30e-6 * (double) ts_rings_local(&r, w->local);
            cr_assert(fabs(w->up + r.origin_offset - 20000 - offset) < 1.0, "way %d at %lld", i, (long long) t);
        }
    }
    cr_assert_geq(r.nways, 54 * 3, "54 minutes of ways at least: %d", r.nways);
    int64_t newest = ts_rings_local(&r, ts_rings_way(&r, r.nways - 1)->local);
    int64_t oldest = ts_rings_local(&r, ts_rings_block(&r, 0)->t_up);
    cr_assert(newest - oldest >= 54 * 60 * 1000000LL && newest - oldest <= 72 * 60 * 1000000LL,
              "the long history spans %.1f minutes", (double) (newest - oldest) / 60e6);
    const ts_point_t *p = ts_rings_point(&r, r.npoints - 1);
    cr_assert(fabs(p->offset + r.origin_offset - (base + 30e-6 * (double) newest)) < 1.0);
}

Test(rings, a_server_step_moves_the_offsets_from_before_it)
{
    ts_rings_init(&r, 64);
    for (int64_t local = 0; local <= 1000000; local += 1000000) {
        ts_sample_t s = { .local = local, .offset = 1000, .delay = 40000 };
        ts_rings_follow(&r, s.local, s.offset);
        ts_rings_add_ways(&r, &s, 0.5, 0);
        ts_rings_add_point(&r, &s);
    }
    ts_rings_move_before(&r, 50000, 1000000);
    cr_assert_float_eq(ts_rings_point(&r, 0)->offset + r.origin_offset, 51000, 1e-6);
    cr_assert_float_eq(ts_rings_way(&r, 0)->up + r.origin_offset, 71000, 1e-6);
    cr_assert_float_eq(ts_rings_way(&r, 0)->down - r.origin_offset, -31000, 1e-6);
    cr_assert_float_eq(ts_rings_point(&r, 1)->offset + r.origin_offset, 1000, 1e-6, "the step's own sample stays");
    cr_assert_float_eq(ts_rings_way(&r, 1)->up + r.origin_offset, 21000, 1e-6);
    cr_assert_float_eq(ts_rings_way(&r, 1)->down - r.origin_offset, 19000, 1e-6);
}
