/* tests/test_history.c - a player's latency history, a step at a time: the
 * row a finished step gives (exchanges, lost, rtt min/p50/max, jitter), no
 * row for a step with no exchange, and a silent player's last step. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "history.h"
#include "prng.h"

#define STEP 60000000LL
#define T0   (1700000000LL / 60 * 60 * 1000000)   /* a step boundary */

Test(history, a_finished_step_becomes_a_row)
{
    scene_history_t h;
    scene_history_init(&h, STEP);
    scene_history_row_t row;
    const int64_t rtts[] = { 30000, 34000, 31000, 50000, 29000 };
    for (int i = 0; i < 5; i++)
        cr_assert_not(scene_history_add(&h, 7, T0 + i * 1000000, rtts[i], false, &row));
    cr_assert_not(scene_history_add(&h, 7, T0 + 6000000, -1, false, &row), "an invalid sample counts as an exchange");
    cr_assert_not(scene_history_add(&h, 7, T0 + 7000000, -1, true, &row), "and a lost one");
    cr_assert(scene_history_add(&h, 7, T0 + STEP + 500000, 40000, false, &row), "the next step closes it");
    cr_assert_eq(row.player_id, 7);
    cr_assert_eq(row.t_us, T0);
    cr_assert_eq(row.exchanges, 7);
    cr_assert_eq(row.lost, 1);
    cr_assert_eq(row.rtt_min_us, 29000);
    cr_assert_eq(row.rtt_p50_us, 31000);
    cr_assert_eq(row.rtt_max_us, 50000);
    /* |34-30| + |31-34| + |50-31| + |29-50| = 4 + 3 + 19 + 21 = 47 ms over 4 */
    cr_assert_eq(row.jitter_us, 11750);
}

Test(history, steps_without_exchanges_give_no_row_and_a_silent_player_s_last_step_is_flushed)
{
    scene_history_t h;
    scene_history_init(&h, STEP);
    scene_history_row_t row;
    scene_history_add(&h, 9, T0 + 1000, 20000, false, &row);
    cr_assert(scene_history_add(&h, 9, T0 + 3 * STEP + 5, 21000, false, &row), "two empty steps later");
    cr_assert_eq(row.t_us, T0, "one row, for the step that had the exchange");
    cr_assert_not(scene_history_flush(&h, 9, T0 + 3 * STEP + 10, &row), "the current step is not over");
    cr_assert(scene_history_flush(&h, 9, T0 + 4 * STEP, &row), "over: flushed");
    cr_assert_eq(row.t_us, T0 + 3 * STEP);
    cr_assert_eq(row.exchanges, 1);
    cr_assert_eq(row.jitter_us, 0);
    cr_assert_not(scene_history_flush(&h, 9, T0 + 9 * STEP, &row), "once");
}

Test(history, a_step_holds_its_first_samples_when_a_client_is_fast)
{
    scene_history_t h;
    scene_history_init(&h, STEP);
    scene_history_row_t row;
    for (int i = 0; i < 200; i++)
        scene_history_add(&h, 1, T0 + i * 1000, 10000 + i, false, &row);
    cr_assert(scene_history_add(&h, 1, T0 + STEP, 1, false, &row));
    cr_assert_eq(row.exchanges, 200);
    cr_assert_eq(row.rtt_max_us, 10199, "min and max see every sample");
    cr_assert_eq(row.rtt_p50_us, 10000 + SCENE_HISTORY_SAMPLES / 2, "the median, the first 64");
}

/* The open step, as the player's row carries it at each flush, is the
 * step so far: at the step's end it equals the row that closes it, and
 * reading it changes nothing. */
Test(history, the_open_step_is_the_step_so_far)
{
    scene_history_t h;
    scene_history_init(&h, STEP);
    scene_history_row_t row, open;
    scene_history_open(&h, 3, &open);
    cr_assert_eq(open.t_us, 0, "no step yet");
    cr_assert_eq(open.player_id, 3);
    for (int i = 0; i < 41; i++) {
        int64_t rtt = 20000 + (i * 7919) % 9000;
        bool lost = i % 13 == 5;
        scene_history_add(&h, 3, T0 + i * 1000000, lost ? -1 : rtt, lost, &row);
        scene_history_open(&h, 3, &open);
        cr_assert_eq(open.t_us, T0);
        cr_assert_eq(open.exchanges, i + 1, "every exchange so far, not since the last read");
    }
    scene_history_row_t full;
    cr_assert(scene_history_flush(&h, 3, T0 + STEP, &full));
    cr_assert_eq(full.exchanges, open.exchanges);
    cr_assert_eq(full.lost, open.lost);
    cr_assert_eq(full.rtt_p50_us, open.rtt_p50_us);
    cr_assert_eq(full.jitter_us, open.jitter_us);
    cr_assert_eq(full.rtt_min_us, open.rtt_min_us);
    cr_assert_eq(full.rtt_max_us, open.rtt_max_us);
    scene_history_open(&h, 3, &open);
    cr_assert_eq(open.t_us, 0, "closed: nothing open");
}

Test(history, a_closed_step_is_given_once)
{
    scene_history_t h;
    scene_history_init(&h, STEP);
    scene_history_row_t row;
    scene_history_add(&h, 4, T0 + 10, 20000, false, &row);
    cr_assert(scene_history_add(&h, 4, T0 + STEP + 10, 21000, false, &row), "the old step ends");
    cr_assert_eq(row.t_us, T0);
    cr_assert_eq(row.exchanges, 1);
    cr_assert(scene_history_flush(&h, 4, INT64_MAX, &row), "an eviction closes the open one");
    cr_assert_eq(row.t_us, T0 + STEP);
    cr_assert_not(scene_history_flush(&h, 4, INT64_MAX, &row), "and it is gone");
}

/* Parts of several players' steps, in any order and more than one a step:
 * coalesced, one row a step in key order, as the store would sum them. */
Test(history, parts_coalesce_into_one_row_a_step_in_key_order)
{
    scene_history_row_t rows[] = {
        { .player_id = 2, .t_us = T0 + STEP, .exchanges = 1, .rtt_min_us = 5, .rtt_p50_us = 5, .rtt_max_us = 5, .seen = 1 },
        { .player_id = 1, .t_us = T0, .exchanges = 3, .lost = 1, .rtt_min_us = 10, .rtt_p50_us = 12, .rtt_max_us = 20,
          .jitter_us = 4, .seen = 3 },
        { .player_id = 1, .t_us = T0, .exchanges = 2, .rtt_min_us = 8, .rtt_p50_us = 11, .rtt_max_us = 20,
          .jitter_us = 3, .seen = 5 },
        { .player_id = 1, .t_us = T0, .exchanges = 1, .lost = 1, .rtt_min_us = 8, .rtt_p50_us = 11, .rtt_max_us = 20,
          .jitter_us = 3, .seen = 6 },
        { .player_id = 3, .t_us = T0, .exchanges = 1, .lost = 1, .seen = 1 },
        { .player_id = 3, .t_us = T0, .exchanges = 1, .rtt_min_us = 7, .rtt_p50_us = 7, .rtt_max_us = 7, .seen = 2 },
    };
    size_t n = scene_history_coalesce(rows, sizeof rows / sizeof rows[0]);
    cr_assert_eq(n, 3);
    cr_assert(rows[0].player_id == 1 && rows[0].t_us == T0);
    cr_assert_eq(rows[0].exchanges, 6);
    cr_assert_eq(rows[0].lost, 2);
    cr_assert_eq(rows[0].rtt_min_us, 8);
    cr_assert_eq(rows[0].rtt_p50_us, 11, "the latest part's");
    cr_assert_eq(rows[0].jitter_us, 3);
    cr_assert_eq(rows[0].seen, 6);
    cr_assert(rows[1].player_id == 3 && rows[1].t_us == T0);
    cr_assert_eq(rows[1].exchanges, 2);
    cr_assert_eq(rows[1].rtt_min_us, 7, "a part with no round trip has no minimum");
    cr_assert_eq(rows[1].rtt_p50_us, 7);
    cr_assert(rows[2].player_id == 2 && rows[2].t_us == T0 + STEP);
    cr_assert_eq(scene_history_coalesce(rows, 1), 1);
    cr_assert_eq(scene_history_coalesce(rows, 0), 0);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;
    return (x > y) - (x < y);
}

/* The round trips are kept sorted as they come: whatever their order and
 * repeats, the median is the middle of the sorted step (of its first 64). */
Test(history, the_median_is_the_sorted_middle_in_any_order)
{
    uint64_t rng = 99;
    for (int draw = 0; draw < 200; draw++) {
        scene_history_t h;
        scene_history_init(&h, STEP);
        scene_history_row_t row;
        int n = 1 + (int) (ts_prng_next(&rng) % 90);
        int64_t v[90];
        for (int i = 0; i < n; i++) {
            v[i] = 20000 + (int64_t) (ts_prng_next(&rng) % 40) * 100;   /* repeats are common */
            scene_history_add(&h, 1, T0 + i * 1000, v[i], false, &row);
        }
        int kept = n < SCENE_HISTORY_SAMPLES ? n : SCENE_HISTORY_SAMPLES;
        qsort(v, (size_t) kept, sizeof v[0], cmp_i64);
        cr_assert(scene_history_add(&h, 1, T0 + STEP, 1, false, &row));
        cr_assert_eq(row.rtt_p50_us, v[kept / 2], "draw %d: %d round trips", draw, n);
    }
}
