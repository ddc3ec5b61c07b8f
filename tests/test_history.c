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
