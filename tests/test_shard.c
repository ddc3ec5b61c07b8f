/* tests/test_shard.c - lib/shard: jump consistent hash is stable and moves few keys. */
#include <criterion/criterion.h>

#include "shard.h"

Test(shard, known_values_and_range)
{
    cr_assert_eq(ts_shard_of(0, 1), 0);
    for (uint64_t k = 1; k < 10000; k++) {
        int s = ts_shard_of(k, 7);
        cr_assert(s >= 0 && s < 7);
        cr_assert_eq(s, ts_shard_of(k, 7), "stable");
    }
}

Test(shard, growing_by_one_moves_about_one_in_n)
{
    int moved = 0;
    for (uint64_t k = 1; k <= 100000; k++) {
        int a = ts_shard_of(k, 4), b = ts_shard_of(k, 5);
        if (a != b) {
            cr_assert_eq(b, 4, "keys only move to the new shard");
            moved++;
        }
    }
    cr_assert(moved > 17000 && moved < 23000, "moved %d of 100000", moved);
}
