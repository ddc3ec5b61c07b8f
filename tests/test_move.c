/* tests/test_move.c - scene/move: a release takes exactly the players that
 * hash to another shard and that no worker can hold (offline, no open
 * step, quiet), with their whole history, deleted in the same transaction;
 * limit and the counts of those held and left; the wire form read back;
 * the merge rule of an adoption. On a store made by the scene's own store
 * module. */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "move.h"
#include "shard.h"
#include "store.h"

#define T0 1800000000000000LL
#define STEP 1000000LL

static char dir[64], db[96];

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/ts-move-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    snprintf(db, sizeof db, "%s/scene.db", dir);
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
}

TestSuite(move, .init = setup, .fini = teardown);

/* players 1..n, each with steps history rows; quiet (updated at T0) and offline */
static void fill(int n, int steps)
{
    char err[TS_ERR_MAX];
    scene_store_t *s = scene_store_new(db, err);
    cr_assert_not_null(s, "%s", err);
    for (int p = 1; p <= n; p++) {
        scene_row_t row = { .player_id = (uint64_t) p, .srtt_us = 1000 * p, .rttvar_us = 100, .min_rtt_us = 900 * p,
                            .samples = 10 * p, .lost = p % 3, .updated_at_us = T0, .clock_rate_known = p % 2,
                            .clock_rate_ppm = -p };
        scene_history_row_t h[16];
        for (int k = 0; k < steps; k++)
            h[k] = (scene_history_row_t) { .player_id = (uint64_t) p, .t_us = T0 + k * STEP, .exchanges = p + k,
                                           .lost = k % 2, .rtt_min_us = 1, .rtt_p50_us = 2, .rtt_max_us = 3,
                                           .jitter_us = 4 };
        cr_assert_eq(scene_store_put_all(s, &row, 1, h, (size_t) steps, err), 0, "%s", err);
    }
    scene_store_destroy(&s);
}

static long long count(const char *sql)
{
    sqlite3 *d;
    cr_assert_eq(sqlite3_open(db, &d), SQLITE_OK);
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(d, sql, -1, &st, NULL), SQLITE_OK, "%s", sqlite3_errmsg(d));
    cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
    long long v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(d);
    return v;
}

Test(move, a_release_takes_the_players_that_hash_elsewhere_with_all_their_history)
{
    fill(60, 5);
    int moving = 0;
    for (uint64_t p = 1; p <= 60; p++)
        moving += ts_shard_of(p, 3) != 0;
    char err[TS_ERR_MAX];
    scene_move_t *m = scene_move_new(db, err);
    cr_assert_not_null(m, "%s", err);
    scene_move_ask_t ask = { .shards = 3, .shard = 0, .limit = 1000, .quiet_before_us = T0 + 1 };
    json_t *out = scene_move_release(m, &ask, err);
    cr_assert_not_null(out, "%s", err);
    cr_assert_eq(json_integer_value(json_object_get(out, "released")), moving);
    cr_assert_eq(json_integer_value(json_object_get(out, "held")), 0);
    cr_assert_eq(json_integer_value(json_object_get(out, "left")), 0);
    size_t i;
    json_t *p;
    json_array_foreach(json_object_get(out, "players"), i, p) {
        scene_row_t row;
        scene_history_row_t h[8];
        size_t nh;
        cr_assert_eq(scene_move_player_of(p, &row, h, 8, &nh, err), 0, "%s", err);
        cr_assert_neq(ts_shard_of(row.player_id, 3), 0);
        int id = (int) row.player_id;
        cr_assert_eq(row.srtt_us, 1000 * id);
        cr_assert_eq(row.samples, 10 * id);
        cr_assert_eq(row.clock_rate_known, id % 2);
        cr_assert_eq(row.clock_rate_ppm, id % 2 ? -id : 0);
        cr_assert_eq(nh, 5);
        for (size_t k = 0; k < nh; k++) {
            cr_assert_eq(h[k].player_id, row.player_id);
            cr_assert_eq(h[k].t_us, T0 + (int64_t) k * STEP);
            cr_assert_eq(h[k].exchanges, id + (int64_t) k);
            cr_assert_eq(h[k].jitter_us, 4);
        }
    }
    json_decref(out);
    cr_assert_eq(count("SELECT count(*) FROM player_latency"), 60 - moving, "the rows are gone");
    cr_assert_eq(count("SELECT count(*) FROM player_latency_history"), 5 * (60 - moving), "their history too");
    out = scene_move_release(m, &ask, err);
    cr_assert_eq(json_integer_value(json_object_get(out, "released")), 0, "nothing twice");
    json_decref(out);
    scene_move_destroy(&m);
    cr_assert_null(m);
}

Test(move, players_a_worker_may_hold_are_held_and_limit_leaves_the_rest)
{
    fill(40, 2);
    char err[TS_ERR_MAX];
    scene_store_t *s = scene_store_new(db, err);
    /* an online one, one with an open step, one changed lately: all moving under 2 shards? pick them so */
    uint64_t busy[3], n = 0;
    for (uint64_t p = 1; p <= 40 && n < 3; p++)
        if (ts_shard_of(p, 2) == 1)
            busy[n++] = p;
    scene_row_t r0 = { .player_id = busy[0], .online = 1, .updated_at_us = T0 };
    scene_row_t r1 = { .player_id = busy[1], .updated_at_us = T0, .step = { .player_id = busy[1], .t_us = T0 } };
    scene_row_t r2 = { .player_id = busy[2], .updated_at_us = T0 + 10 * STEP };
    scene_row_t rows[] = { r0, r1, r2 };
    cr_assert_eq(scene_store_put(s, rows, 3, err), 0, "%s", err);
    scene_store_destroy(&s);
    int moving = 0;
    for (uint64_t p = 1; p <= 40; p++)
        moving += ts_shard_of(p, 2) == 1;
    scene_move_t *m = scene_move_new(db, err);
    scene_move_ask_t ask = { .shards = 2, .shard = 0, .limit = 5, .quiet_before_us = T0 + 1 };
    json_t *out = scene_move_release(m, &ask, err);
    cr_assert_not_null(out, "%s", err);
    cr_assert_eq(json_integer_value(json_object_get(out, "released")), 5);
    cr_assert_eq(json_integer_value(json_object_get(out, "held")), 3);
    cr_assert_eq(json_integer_value(json_object_get(out, "left")), moving - 3 - 5);
    json_decref(out);
    ask.shard = 5;
    cr_assert_null(scene_move_release(m, &ask, err), "shard 5 of 2");
    scene_move_destroy(&m);
    cr_assert_null(scene_move_new("/nonexistent/dir/x.db", err));
}

Test(move, the_wire_form_refuses_what_is_not_a_player)
{
    char err[TS_ERR_MAX];
    scene_row_t row;
    scene_history_row_t h[2];
    size_t nh;
    json_t *bad[] = {
        json_pack("{s:{s:i}}", "row", "player_id", 1),                                  /* no history */
        json_pack("{s:{s:i},s:[]}", "row", "player_id", 0, "history"),                  /* id 0 */
        json_pack("{s:{s:i,s:s},s:[]}", "row", "player_id", 1, "srtt_us", "x", "history"),   /* not an integer */
        json_pack("{s:{s:i},s:[{},{},{}]}", "row", "player_id", 1, "history"),          /* more than cap */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_assert_eq(scene_move_player_of(bad[i], &row, h, 2, &nh, err), -1, "case %zu", i);
        json_decref(bad[i]);
    }
}

Test(move, an_adopted_row_adds_its_counts_and_keeps_the_newer_state)
{
    scene_row_t cur = { .player_id = 7, .srtt_us = 5000, .min_rtt_us = 4000, .samples = 3, .lost = 1, .online = 1,
                        .updated_at_us = 200, .step = { .t_us = 9 } };
    scene_row_t old = { .player_id = 7, .srtt_us = 8000, .min_rtt_us = 3000, .samples = 100, .lost = 4,
                        .invalid = 2, .updated_at_us = 100, .lag_flag = 1 };
    scene_move_merge(&cur, &old);
    cr_assert_eq(cur.samples, 103);
    cr_assert_eq(cur.lost, 5);
    cr_assert_eq(cur.invalid, 2);
    cr_assert_eq(cur.min_rtt_us, 3000);
    cr_assert_eq(cur.srtt_us, 5000, "measured here since: newer");
    cr_assert_eq(cur.lag_flag, 0);
    cr_assert_eq(cur.online, 1);
    cr_assert_eq(cur.step.t_us, 9);
    cr_assert_eq(cur.updated_at_us, 200);
    scene_row_t fresh = { .player_id = 7, .online = 1 };
    scene_move_merge(&fresh, &old);
    cr_assert_eq(fresh.srtt_us, 8000, "nothing measured here yet: the old state carries on");
    cr_assert_eq(fresh.lag_flag, 1);
    cr_assert_eq(fresh.online, 1);
    cr_assert_eq(fresh.samples, 100);
}
