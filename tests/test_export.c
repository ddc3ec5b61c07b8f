/* tests/test_export.c - scene/export: a shard's store, written by the
 * scene's own store module, shipped into a real clickhouse-server. Only
 * final rows leave (a step still open in a player's row, or ended within
 * the settle margin, waits); every row arrives once whatever the batch
 * size; a new exporter goes on right after the last row ClickHouse holds
 * (after a batch cut short too); a
 * ClickHouse away, or a shard file that is not there, is a failed pass
 * that the next one repairs. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chserver.h"
#include "clickhouse.h"
#include "export.h"
#include "store.h"

#define STEP 1000000LL                    /* 1 s steps */
#define T0   1800000000000000LL           /* a server time, µs */

static test_ch_t server;
static ts_clickhouse_t *ch;
static char dir[64], db[96];

static void setup(void)
{
    cr_assert(test_ch_start(&server), "clickhouse-server did not start (see %s/server.log)", server.dir);
    char err[TS_ERR_MAX];
    ch = ts_clickhouse_new(server.url, 5000, err);
    cr_assert_not_null(ch, "%s", err);
    snprintf(dir, sizeof dir, "/tmp/ts-export-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    snprintf(db, sizeof db, "%s/scene.db", dir);
}

static void teardown(void)
{
    ts_clickhouse_destroy(&ch);
    test_ch_stop(&server);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
}

TestSuite(export, .init = setup, .fini = teardown, .timeout = 60);

/* players 1..n have a history row in each of steps 0..steps-1 from T0. */
static void write_history(scene_store_t *s, int players, int steps)
{
    char err[TS_ERR_MAX];
    for (int k = 0; k < steps; k++) {
        scene_history_row_t h[64];
        for (int p = 0; p < players; p++)
            h[p] = (scene_history_row_t) { .player_id = (uint64_t) p + 1, .t_us = T0 + k * STEP,
                                           .exchanges = 10 + p, .lost = p % 2, .rtt_min_us = 1000 * (p + 1),
                                           .rtt_p50_us = 1500 * (p + 1), .rtt_max_us = 2000 * (p + 1),
                                           .jitter_us = 17 + k };
        cr_assert_eq(scene_store_put_all(s, NULL, 0, h, (size_t) players, err), 0, "%s", err);
    }
}

static scene_export_t *exporter(int shard, int batch)
{
    char err[TS_ERR_MAX];
    scene_export_options_t o = { .db = db, .shard = shard, .clickhouse = server.url, .database = "ticksync",
                                 .step_us = STEP, .settle_us = 500000, .batch_rows = batch, .timeout_ms = 5000 };
    scene_export_t *ex = scene_export_new(&o, err);
    cr_assert_not_null(ex, "%s", err);
    return ex;
}

static long long ch_number(const char *sql)
{
    char err[TS_ERR_MAX], *answer = NULL;
    cr_assert_eq(ts_clickhouse_run(ch, sql, NULL, 0, &answer, err), 0, "%s: %s", sql, err);
    long long v = atoll(answer);
    free(answer);
    return v;
}

Test(export, every_final_row_arrives_once_field_for_field_in_batches_of_any_size)
{
    char err[TS_ERR_MAX];
    scene_store_t *s = scene_store_new(db, err);
    cr_assert_not_null(s, "%s", err);
    write_history(s, 7, 5);
    scene_store_destroy(&s);
    scene_export_t *ex = exporter(3, 4);   /* 35 rows in 9 INSERTs, steps cut across them */
    cr_assert_eq(scene_export_pass(ex, T0 + 100 * STEP, err), 35, "%s", err);
    cr_assert_eq(scene_export_pass(ex, T0 + 101 * STEP, err), 0, "nothing new: %s", err);
    cr_assert_eq(scene_export_position(ex), T0 + 4 * STEP);
    scene_export_destroy(&ex);
    cr_assert_null(ex);
    cr_assert_eq(ch_number("SELECT count() FROM ticksync.player_latency_history"), 35);
    cr_assert_eq(ch_number("SELECT count() FROM ticksync.player_latency_history WHERE shard = 3"), 35);
    cr_assert_eq(ch_number("SELECT sum(exchanges) FROM ticksync.player_latency_history"), 5 * (10 + 11 + 12 + 13 + 14 + 15 + 16));
    char *answer = NULL, sql[512], want[128];
    snprintf(sql, sizeof sql, "SELECT player_id, t_us, exchanges, lost, rtt_min_us, rtt_p50_us, rtt_max_us, jitter_us "
                              "FROM ticksync.player_latency_history WHERE player_id = 7 AND t_us = %lld "
                              "FORMAT TabSeparated", T0 + 2 * STEP);
    cr_assert_eq(ts_clickhouse_run(ch, sql, NULL, 0, &answer, err), 0, "%s", err);
    snprintf(want, sizeof want, "7\t%lld\t16\t0\t7000\t10500\t14000\t19\n", T0 + 2 * STEP);
    cr_assert_str_eq(answer, want);
    free(answer);
}

Test(export, a_step_still_open_or_just_ended_waits)
{
    char err[TS_ERR_MAX];
    scene_store_t *s = scene_store_new(db, err);
    cr_assert_not_null(s, "%s", err);
    write_history(s, 3, 6);   /* steps 0..5 */
    /* player 9 still holds step 2 open in its row: steps 2.. may get a part yet */
    scene_row_t row = { .player_id = 9, .srtt_us = 5000, .online = 1,
                        .step = { .player_id = 9, .t_us = T0 + 2 * STEP, .exchanges = 3 } };
    cr_assert_eq(scene_store_put(s, &row, 1, err), 0, "%s", err);
    scene_export_t *ex = exporter(0, 1000);
    cr_assert_eq(scene_export_pass(ex, T0 + 100 * STEP, err), 6, "steps 0 and 1 only: %s", err);
    /* the step ends: its row goes into the history, the open step leaves the row */
    scene_history_row_t done = row.step;
    row.step = (scene_history_row_t) { 0 };
    cr_assert_eq(scene_store_put_all(s, &row, 1, &done, 1, err), 0, "%s", err);
    /* 0.4 s after step 5 ends (at 6): within the margin, so steps 2 to 4 */
    cr_assert_eq(scene_export_pass(ex, T0 + 6 * STEP + 400000, err), 3 * 3 + 1, "%s", err);
    cr_assert_eq(ch_number("SELECT count() FROM ticksync.player_latency_history FINAL"), 16);
    cr_assert_eq(scene_export_pass(ex, T0 + 100 * STEP, err), 3, "step 5 at last: %s", err);
    scene_export_destroy(&ex);
    scene_store_destroy(&s);
}

Test(export, a_new_exporter_goes_on_right_after_the_last_row_clickhouse_holds)
{
    char err[TS_ERR_MAX];
    scene_store_t *s = scene_store_new(db, err);
    cr_assert_not_null(s, "%s", err);
    write_history(s, 5, 4);
    scene_export_t *ex = exporter(1, 1000);
    cr_assert_eq(scene_export_pass(ex, T0 + 100 * STEP, err), 20, "%s", err);
    scene_export_destroy(&ex);
    scene_history_row_t later = { .player_id = 2, .t_us = T0 + 9 * STEP, .exchanges = 4 };
    cr_assert_eq(scene_store_put_all(s, NULL, 0, &later, 1, err), 0, "%s", err);
    ex = exporter(1, 1000);
    cr_assert_eq(scene_export_pass(ex, T0 + 100 * STEP, err), 1, "only the new row: %s", err);
    scene_export_destroy(&ex);
    cr_assert_eq(ch_number("SELECT count() FROM ticksync.player_latency_history"), 21, "none sent twice");
    cr_assert_eq(ch_number("SELECT sum(exchanges) FROM ticksync.player_latency_history"), 4 * 60 + 4);
    scene_store_destroy(&s);
}

Test(export, a_batch_cut_short_is_a_prefix_and_the_rest_follows_it)
{
    char err[TS_ERR_MAX], sql[512];
    scene_store_t *s = scene_store_new(db, err);
    cr_assert_not_null(s, "%s", err);
    write_history(s, 3, 3);   /* (step, player): (0,1) (0,2) (0,3) (1,1) ... */
    scene_export_t *ex = exporter(2, 1000);
    cr_assert_eq(scene_export_pass(ex, T0 + 100 * STEP, err), 9, "%s", err);
    scene_export_destroy(&ex);
    /* as if ClickHouse had kept only the first 4 rows of that batch */
    snprintf(sql, sizeof sql, "ALTER TABLE ticksync.player_latency_history DELETE WHERE (t_us, player_id) > (%lld, 1)",
             T0 + STEP);
    cr_assert_eq(ts_clickhouse_run(ch, sql, NULL, 0, NULL, err), 0, "%s", err);
    for (int i = 0; i < 100 && ch_number("SELECT count() FROM ticksync.player_latency_history") != 4; i++)
        usleep(50000);   /* a mutation runs in the background */
    cr_assert_eq(ch_number("SELECT count() FROM ticksync.player_latency_history"), 4);
    ex = exporter(2, 2);
    cr_assert_eq(scene_export_pass(ex, T0 + 100 * STEP, err), 5, "the 5 after the prefix: %s", err);
    scene_export_destroy(&ex);
    cr_assert_eq(ch_number("SELECT count() FROM ticksync.player_latency_history"), 9);
    cr_assert_eq(ch_number("SELECT uniqExact(t_us, player_id) FROM ticksync.player_latency_history"), 9);
    scene_store_destroy(&s);
}

Test(export, clickhouse_away_fails_the_pass_and_the_next_one_catches_up)
{
    char err[TS_ERR_MAX];
    scene_store_t *s = scene_store_new(db, err);
    cr_assert_not_null(s, "%s", err);
    write_history(s, 4, 3);
    scene_store_destroy(&s);
    scene_export_t *ex = exporter(0, 5);
    cr_assert_eq(scene_export_pass(ex, T0 + 100 * STEP, err), 12, "%s", err);
    test_ch_stop(&server);   /* its data goes with it: the position must come back from it, not from memory */
    s = scene_store_new(db, err);
    scene_history_row_t more = { .player_id = 1, .t_us = T0 + 7 * STEP, .exchanges = 1 };
    cr_assert_eq(scene_store_put_all(s, NULL, 0, &more, 1, err), 0, "%s", err);
    cr_assert_eq(scene_export_pass(ex, T0 + 100 * STEP, err), -1);
    cr_assert(strstr(err, "connect"), "%s", err);
    cr_assert(test_ch_start(&server), "a new clickhouse-server");
    scene_export_destroy(&ex);   /* the new server has a new port: a new exporter, as after a restart */
    ex = exporter(0, 5);
    cr_assert_eq(scene_export_pass(ex, T0 + 100 * STEP, err), 13, "all again, into an empty ClickHouse: %s", err);
    ts_clickhouse_destroy(&ch);
    ch = ts_clickhouse_new(server.url, 5000, err);
    cr_assert_eq(ch_number("SELECT count() FROM ticksync.player_latency_history FINAL"), 13);
    scene_export_destroy(&ex);
    scene_store_destroy(&s);
}

Test(export, a_shard_file_that_is_not_there_fails_the_pass_until_it_is)
{
    char err[TS_ERR_MAX];
    scene_export_t *ex = exporter(0, 100);
    cr_assert_eq(scene_export_pass(ex, T0 + 100 * STEP, err), -1);
    cr_assert(strstr(err, db), "names the file: %s", err);
    scene_store_t *s = scene_store_new(db, err);
    cr_assert_not_null(s, "%s", err);
    write_history(s, 2, 2);
    cr_assert_eq(scene_export_pass(ex, T0 + 100 * STEP, err), 4, "%s", err);
    scene_export_destroy(&ex);
    scene_store_destroy(&s);
}
