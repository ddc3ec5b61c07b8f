/* tests/test_history.c - a player's latency history, a step at a time: the
 * row a finished step gives (exchanges, lost, rtt min/p50/max, jitter), no
 * row for a step with no exchange, and a silent player's last step. */
#include <criterion/criterion.h>

#include "history.h"

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

/* Parts of a step, summed as the store sums them (counts added, the latest
 * figures kept), give the same row as the step taken whole. */
Test(history, parts_of_a_step_add_up_to_the_whole_step)
{
    scene_history_t whole, parted;
    scene_history_init(&whole, STEP);
    scene_history_init(&parted, STEP);
    scene_history_row_t row, part, sum = { 0 };
    cr_assert_not(scene_history_part(&parted, 3, &part), "nothing yet");
    for (int i = 0; i < 41; i++) {
        int64_t rtt = 20000 + (i * 7919) % 9000;
        bool lost = i % 13 == 5;
        scene_history_add(&whole, 3, T0 + i * 1000000, lost ? -1 : rtt, lost, &row);
        scene_history_add(&parted, 3, T0 + i * 1000000, lost ? -1 : rtt, lost, &row);
        if (i % 3 == 0) {   /* a flush every third exchange */
            cr_assert(scene_history_part(&parted, 3, &part));
            cr_assert_not(scene_history_part(&parted, 3, &row), "nothing new since");
            cr_assert_eq(part.t_us, T0);
            sum.exchanges += part.exchanges;
            sum.lost += part.lost;
            sum.rtt_p50_us = part.rtt_p50_us;
            sum.jitter_us = part.jitter_us;
            sum.rtt_min_us = part.rtt_min_us;
            sum.rtt_max_us = part.rtt_max_us;
        }
    }
    scene_history_row_t full, last;
    cr_assert(scene_history_flush(&whole, 3, T0 + STEP, &full));
    cr_assert(scene_history_flush(&parted, 3, T0 + STEP, &last), "the exchanges after the last part");
    sum.exchanges += last.exchanges;
    sum.lost += last.lost;
    cr_assert_eq(sum.exchanges, full.exchanges);
    cr_assert_eq(sum.lost, full.lost);
    cr_assert_eq(last.rtt_p50_us, full.rtt_p50_us);
    cr_assert_eq(last.jitter_us, full.jitter_us);
    cr_assert_eq(last.rtt_min_us, full.rtt_min_us);
    cr_assert_eq(last.rtt_max_us, full.rtt_max_us);
}

Test(history, a_step_given_whole_in_parts_leaves_nothing_to_close)
{
    scene_history_t h;
    scene_history_init(&h, STEP);
    scene_history_row_t row;
    scene_history_add(&h, 4, T0 + 10, 20000, false, &row);
    cr_assert(scene_history_part(&h, 4, &row));
    cr_assert_eq(row.exchanges, 1);
    cr_assert_not(scene_history_add(&h, 4, T0 + STEP + 10, 21000, false, &row), "the old step was all given");
    cr_assert(scene_history_part(&h, 4, &row));
    cr_assert_eq(row.t_us, T0 + STEP);
    cr_assert_not(scene_history_flush(&h, 4, T0 + 2 * STEP, &row), "and this one too");
    cr_assert_not(scene_history_part(&h, 4, &row), "cleared");
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
