/* tests/test_player.c - scene/player: the exchange, validity, loss, lag flag. */
#include <criterion/criterion.h>

#include "player.h"

static const scene_speed_rule_t no_speed_rule = { .bound_ppm = 10000, .span_us = 30000000 };

static const scene_lag_rule_t rule = { .lag_bound_us = 50000, .lag_strikes = 3 };

Test(player, ack_updates_estimator_and_counts)
{
    scene_player_t *p = scene_player_new(7);
    scene_result_t r;
    scene_player_on_sync(p, 1, 0, 0, 0, &no_speed_rule);
    cr_assert(scene_player_on_ack(p, 1, 100, 5100, 45000, NULL, NULL, &rule, 123, &r));
    cr_assert_eq(r.rtt, 40000);
    cr_assert_eq(r.srtt, 40000);
    cr_assert_eq(r.rttvar, 20000);
    cr_assert_not(scene_player_on_ack(p, 1, 100, 5100, 45000, NULL, NULL, &rule, 123, &r), "seq is no longer pending");
    scene_row_t row;
    scene_player_row(p, &row);
    cr_assert_eq(row.samples, 1);
    cr_assert_eq(row.updated_at_us, 123);
    scene_player_destroy(&p);
    cr_assert_null(p);
}

Test(player, invalid_sample_is_counted_not_used)
{
    scene_player_t *p = scene_player_new(7);
    scene_result_t r;
    scene_player_on_sync(p, 2, 0, 0, 0, &no_speed_rule);
    cr_assert(scene_player_on_ack(p, 2, 500, 100, 45000, NULL, NULL, &rule, 1, &r));
    cr_assert_eq(r.rtt, -1);
    cr_assert_eq(r.srtt, 0);
    scene_row_t row;
    scene_player_row(p, &row);
    cr_assert_eq(row.invalid, 1);
    cr_assert_eq(row.samples, 0);
    scene_player_destroy(&p);
}

Test(player, unacknowledged_exchange_is_lost_after_the_timeout)
{
    scene_player_t *p = scene_player_new(7);
    scene_player_on_sync(p, 3, 0, 0, 0, &no_speed_rule);
    cr_assert_eq(scene_player_expire(p, SCENE_LOST_US, 0), 0);
    cr_assert_eq(scene_player_expire(p, SCENE_LOST_US + 1, 0), 1);
    scene_row_t row;
    scene_player_row(p, &row);
    cr_assert_eq(row.lost, 1);
    scene_result_t r;
    cr_assert_not(scene_player_on_ack(p, 3, 0, 0, 1000, NULL, NULL, &rule, 1, &r));
    scene_player_destroy(&p);
}

Test(player, lag_flag_needs_consecutive_disagreement)
{
    scene_player_t *p = scene_player_new(7);
    scene_result_t r;
    int64_t claimed = 200000;  /* client says 200 ms, server measures 40 ms */
    scene_row_t row;
    for (uint64_t s = 1; s <= 3; s++) {
        scene_player_on_sync(p, s, 0, 0, 0, &no_speed_rule);
        scene_player_on_ack(p, s, 0, 0, 40000, &claimed, NULL, &rule, 1, &r);
        scene_player_row(p, &row);
        cr_assert_eq(row.lag_flag, s == 3, "after %llu strikes", (unsigned long long) s);
        cr_assert_eq(scene_player_lag_flag(p), s == 3, "as the row has it");
    }
    int64_t honest = 41000;
    scene_player_on_sync(p, 9, 0, 0, 0, &no_speed_rule);
    scene_player_on_ack(p, 9, 0, 0, 40000, &honest, NULL, &rule, 1, &r);
    scene_player_row(p, &row);
    cr_assert_eq(row.lag_flag, 0);
    cr_assert_not(scene_player_lag_flag(p));
    cr_assert_eq(row.client_rtt_us, 41000);
    scene_player_destroy(&p);
}

Test(player, restore_continues_smoothing)
{
    scene_player_t *p = scene_player_new(7);
    scene_row_t stored = { .player_id = 7, .rtt_us = 48000, .srtt_us = 41000, .rttvar_us = 17000,
                           .min_rtt_us = 40000, .samples = 2, .lost = 1 };
    scene_player_restore(p, &stored);
    scene_result_t r;
    scene_player_on_sync(p, 1, 0, 0, 0, &no_speed_rule);
    scene_player_on_ack(p, 1, 0, 0, 41000, NULL, NULL, &rule, 1, &r);
    cr_assert_eq(r.srtt, 41000);
    scene_row_t row;
    scene_player_row(p, &row);
    cr_assert_eq(row.samples, 3);
    cr_assert_eq(row.lost, 1);
    scene_player_destroy(&p);
}
