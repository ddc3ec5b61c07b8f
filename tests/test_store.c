/* tests/test_store.c - scene/store: batches, reload after reopening, WAL. */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store.h"

static char path[64];

static void setup(void)
{
    snprintf(path, sizeof path, "/tmp/ts-store-test-%d/scene.db", (int) getpid());
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf /tmp/ts-store-test-%d", (int) getpid());
    cr_assert_eq(system(cmd), 0);
}

Test(store, batch_is_written_and_reloaded_after_reopen, .init = setup, .fini = teardown)
{
    char err[TS_ERR_MAX];
    scene_store_t *s = scene_store_new(path, err);
    cr_assert_not_null(s, "%s", err);
    scene_row_t rows[100];
    for (int i = 0; i < 100; i++)
        rows[i] = (scene_row_t) { .player_id = (uint64_t) i + 1, .srtt_us = 1000 * (i + 1), .samples = i, .online = 1 };
    cr_assert_eq(scene_store_put(s, rows, 100, err), 0, "%s", err);
    rows[0].srtt_us = 777;
    cr_assert_eq(scene_store_put(s, rows, 1, err), 0, "upsert");
    scene_store_destroy(&s);
    cr_assert_null(s);

    s = scene_store_new(path, err);
    cr_assert_not_null(s);
    scene_row_t r;
    cr_assert_eq(scene_store_get(s, 1, &r), 1);
    cr_assert_eq(r.srtt_us, 777);
    cr_assert_eq(r.online, 0, "no session survives a restart");
    cr_assert_eq(scene_store_get(s, 50, &r), 1);
    cr_assert_eq(r.samples, 49);
    cr_assert_eq(scene_store_get(s, 5000, &r), 0);
    scene_store_destroy(&s);

    sqlite3 *db;
    sqlite3_open(path, &db);
    sqlite3_stmt *st;
    sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st, NULL);
    cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
    cr_assert_str_eq((const char *) sqlite3_column_text(st, 0), "wal");
    sqlite3_finalize(st);
    sqlite3_close(db);
}

/* One integer of the first row of sql, on a connection of the test's own. */
static int64_t query_int(const char *sql)
{
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
    cr_assert_eq(sqlite3_step(st), SQLITE_ROW, "%s", sql);
    int64_t v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

/* An integer PRAGMA's value. */
static int pragma_int(const char *pragma)
{
    char sql[64];
    snprintf(sql, sizeof sql, "PRAGMA %s", pragma);
    return (int) query_int(sql);
}

/* A database as an older scene left it: sql run in a new file at path. */
static void make_old_database(const char *sql)
{
    char dir[64];
    snprintf(dir, sizeof dir, "/tmp/ts-store-test-%d", (int) getpid());
    mkdir(dir, 0700);
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
    sqlite3_close(db);
}

Test(store, a_new_database_has_64_kib_pages_in_wal_mode, .init = setup, .fini = teardown)
{
    char err[TS_ERR_MAX];
    scene_store_t *s = scene_store_new(path, err);
    cr_assert_not_null(s, "%s", err);
    scene_row_t row = { .player_id = 8, .srtt_us = 1000, .samples = 1 };
    cr_assert_eq(scene_store_put(s, &row, 1, err), 0, "%s", err);
    cr_assert_eq(pragma_int("page_size"), 65536, "a flush's scattered rows are written in few large frames");
    scene_store_destroy(&s);
}

Test(store, unwritable_path_is_a_clear_error)
{
    char err[TS_ERR_MAX];
    scene_store_t *s = scene_store_new("/proc/ticksync/cannot.db", err);
    cr_assert_null(s);
    cr_assert(strstr(err, "cannot open database") != NULL, "%s", err);
}

Test(store, a_database_of_the_first_schema_gains_the_clock_rate_columns_and_loses_the_srtt_index, .init = setup, .fini = teardown)
{
    /* the table as it was before clock_rate_ppm and speed_flag, with a row */
    make_old_database("CREATE TABLE player_latency (player_id INTEGER PRIMARY KEY, rtt_us INTEGER NOT NULL,"
                      " srtt_us INTEGER NOT NULL, rttvar_us INTEGER NOT NULL, min_rtt_us INTEGER NOT NULL,"
                      " samples INTEGER NOT NULL, invalid INTEGER NOT NULL, lost INTEGER NOT NULL,"
                      " client_rtt_us INTEGER NOT NULL, client_offset_us INTEGER NOT NULL,"
                      " updated_at_us INTEGER NOT NULL, lag_flag INTEGER NOT NULL DEFAULT 0,"
                      " lag_strikes INTEGER NOT NULL DEFAULT 0, online INTEGER NOT NULL DEFAULT 0);"
                      "CREATE INDEX player_latency_srtt ON player_latency(srtt_us);"
                      "INSERT INTO player_latency VALUES (5, 1, 2, 3, 4, 6, 0, 0, 0, 0, 9, 0, 0, 0);");
    char err[TS_ERR_MAX];
    scene_store_t *s = scene_store_new(path, err);
    cr_assert_not_null(s, "%s", err);
    cr_assert_eq(pragma_int("page_size"), 4096, "an older database keeps the page size it was made with");
    scene_row_t row;
    cr_assert_eq(scene_store_get(s, 5, &row), 1, "the old row is still there");
    cr_assert_eq(row.srtt_us, 2);
    cr_assert_eq(row.clock_rate_known, 0, "no rate yet: NULL");
    cr_assert_eq(row.speed_flag, 0);
    row.clock_rate_ppm = 51000;
    row.clock_rate_known = 1;
    row.speed_flag = 1;
    cr_assert_eq(scene_store_put(s, &row, 1, err), 0, "%s", err);
    scene_store_destroy(&s);
    s = scene_store_new(path, err);   /* a second open: the columns are there already */
    cr_assert_not_null(s, "%s", err);
    cr_assert_eq(scene_store_get(s, 5, &row), 1);
    cr_assert_eq(row.clock_rate_ppm, 51000);
    cr_assert_eq(row.speed_flag, 1);
    scene_store_destroy(&s);
    /* the srtt_us index of that time is gone: each upsert paid to move its entry */
    cr_assert_eq(query_int("SELECT count(*) FROM sqlite_schema WHERE name = 'player_latency_srtt'"), 0);
}

Test(store, history_steps_add_up_and_expire_in_small_batches, .init = setup, .fini = teardown)
{
    char err[TS_ERR_MAX];
    scene_store_t *s = scene_store_new(path, err);
    cr_assert_not_null(s, "%s", err);
    scene_history_row_t h[2500];
    for (int i = 0; i < 2500; i++)
        h[i] = (scene_history_row_t) { .player_id = 7, .t_us = (int64_t) i * 60000000, .exchanges = 60, .lost = 1,
                                        .rtt_min_us = 20000, .rtt_p50_us = 25000, .rtt_max_us = 40000, .jitter_us = 900 };
    cr_assert_eq(scene_store_put_all(s, NULL, 0, h, 2500, err), 0, "%s", err);
    /* the first step again: a scene stopped in its middle wrote it in two parts */
    scene_history_row_t again = { .player_id = 7, .t_us = 0, .exchanges = 5, .lost = 0, .rtt_min_us = 15000,
                                  .rtt_p50_us = 26000, .rtt_max_us = 50000, .jitter_us = 100 };
    cr_assert_eq(scene_store_put_all(s, NULL, 0, &again, 1, err), 0, "%s", err);
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(db, "SELECT exchanges, lost, rtt_min_us, rtt_max_us FROM player_latency_history"
                                        " WHERE player_id = 7 AND t_us = 0", -1, &st, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
    cr_assert_eq(sqlite3_column_int64(st, 0), 65, "the parts add up");
    cr_assert_eq(sqlite3_column_int64(st, 1), 1);
    cr_assert_eq(sqlite3_column_int64(st, 2), 15000);
    cr_assert_eq(sqlite3_column_int64(st, 3), 50000);
    sqlite3_finalize(st);
    /* older than step 2000: 2000 rows, at most 1000 a call */
    cr_assert_eq(scene_store_expire_history(s, 2000LL * 60000000, 1000), 1000);
    cr_assert_eq(scene_store_expire_history(s, 2000LL * 60000000, 1000), 1000);
    cr_assert_eq(scene_store_expire_history(s, 2000LL * 60000000, 1000), 0, "nothing older is left");
    cr_assert_eq(sqlite3_prepare_v2(db, "SELECT count(*), min(t_us) FROM player_latency_history", -1, &st, NULL),
                 SQLITE_OK);
    cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
    cr_assert_eq(sqlite3_column_int64(st, 0), 500);
    cr_assert_eq(sqlite3_column_int64(st, 1), 2000LL * 60000000);
    sqlite3_finalize(st);
    sqlite3_close(db);
    scene_store_destroy(&s);
}

/* The open step rides in the player's row: a step closed by its history
 * row leaves the row, and a step a SIGKILL left open reaches the history
 * at the next open, once, adding up with a part already there. */
Test(store, an_open_step_in_a_row_reaches_the_history_once, .init = setup, .fini = teardown)
{
    char err[TS_ERR_MAX];
    scene_store_t *s = scene_store_new(path, err);
    cr_assert_not_null(s, "%s", err);
    const int64_t T = 120000000;
    scene_row_t rows[2] = { { .player_id = 1, .srtt_us = 20000, .samples = 3 },
                            { .player_id = 2, .srtt_us = 30000, .samples = 5 } };
    rows[0].step = (scene_history_row_t) { .player_id = 1, .t_us = T, .exchanges = 3, .lost = 1, .rtt_min_us = 18000,
                                           .rtt_p50_us = 20000, .rtt_max_us = 22000, .jitter_us = 400 };
    rows[1].step = (scene_history_row_t) { .player_id = 2, .t_us = T, .exchanges = 5, .rtt_min_us = 28000,
                                           .rtt_p50_us = 30000, .rtt_max_us = 35000, .jitter_us = 700 };
    cr_assert_eq(scene_store_put(s, rows, 2, err), 0, "%s", err);
    cr_assert_eq(query_int("SELECT count(*) FROM player_latency_history"), 0, "open steps are in the rows");
    cr_assert_eq(query_int("SELECT step_exchanges FROM player_latency WHERE player_id = 2"), 5);
    /* player 2's step ends: its row, and the row's step cleared, in one flush */
    scene_history_row_t done = rows[1].step;
    done.exchanges = 6;
    cr_assert_eq(scene_store_put_all(s, &rows[1], 1, &done, 1, err), 0, "%s", err);
    cr_assert_eq(query_int("SELECT step_t_us FROM player_latency WHERE player_id = 2"), 0, "closed");
    cr_assert_eq(query_int("SELECT exchanges FROM player_latency_history WHERE player_id = 2"), 6);
    scene_store_destroy(&s);   /* as a SIGKILL leaves it: player 1's step still open */

    s = scene_store_new(path, err);
    cr_assert_not_null(s, "%s", err);
    cr_assert_eq(query_int("SELECT count(*) FROM player_latency_history"), 2);
    cr_assert_eq(query_int("SELECT exchanges * 1000 + lost FROM player_latency_history WHERE player_id = 1"), 3001);
    cr_assert_eq(query_int("SELECT rtt_p50_us FROM player_latency_history WHERE player_id = 1"), 20000);
    cr_assert_eq(query_int("SELECT count(*) FROM player_latency WHERE step_t_us != 0"), 0, "moved, not copied");
    cr_assert_eq(query_int("SELECT exchanges FROM player_latency_history WHERE player_id = 2"), 6, "not twice");
    /* player 1 back in the same step on the new scene: a second part adds up */
    scene_history_row_t part2 = { .player_id = 1, .t_us = T, .exchanges = 2, .rtt_min_us = 17000,
                                  .rtt_p50_us = 19000, .rtt_max_us = 19500, .jitter_us = 300 };
    cr_assert_eq(scene_store_put_all(s, NULL, 0, &part2, 1, err), 0, "%s", err);
    cr_assert_eq(query_int("SELECT exchanges FROM player_latency_history WHERE player_id = 1"), 5);
    cr_assert_eq(query_int("SELECT rtt_min_us FROM player_latency_history WHERE player_id = 1"), 17000);
    cr_assert_eq(query_int("SELECT rtt_max_us FROM player_latency_history WHERE player_id = 1"), 22000);
    scene_store_destroy(&s);
}

Test(store, a_history_of_the_first_layout_moves_to_step_order_with_its_rows, .init = setup, .fini = teardown)
{
    /* the history as the first version kept it: keyed by player, then step, and an index on the step */
    make_old_database("CREATE TABLE player_latency_history (player_id INTEGER NOT NULL, t_us INTEGER NOT NULL,"
                      " exchanges INTEGER NOT NULL, lost INTEGER NOT NULL, rtt_min_us INTEGER NOT NULL,"
                      " rtt_p50_us INTEGER NOT NULL, rtt_max_us INTEGER NOT NULL, jitter_us INTEGER NOT NULL,"
                      " PRIMARY KEY (player_id, t_us));"
                      "CREATE INDEX player_latency_history_t ON player_latency_history(t_us);"
                      "INSERT INTO player_latency_history VALUES (9, 60000000, 60, 2, 20000, 21000, 30000, 400),"
                      " (9, 120000000, 55, 0, 19000, 20000, 25000, 300), (4, 60000000, 60, 0, 9000, 9500, 9900, 50);");

    char err[TS_ERR_MAX];
    scene_store_t *s = scene_store_new(path, err);
    cr_assert_not_null(s, "%s", err);
    cr_assert_eq(query_int("SELECT count(*) FROM player_latency_history"), 3, "every row moved");
    int64_t took_us;
    cr_assert_eq(scene_store_history_moved(s, &took_us), 3, "counted, for the scene's log");
    cr_assert_geq(took_us, 0);
    cr_assert_eq(query_int("SELECT count(*) FROM sqlite_schema WHERE name LIKE 'player_latency_history_%'"), 0,
                 "neither the step index nor the old table is left");
    cr_assert_eq(query_int("SELECT instr(sql, 'WITHOUT ROWID') > 0 FROM sqlite_schema"
                           " WHERE name = 'player_latency_history'"),
                 1);
    cr_assert_eq(query_int("SELECT rtt_p50_us FROM player_latency_history WHERE player_id = 9 AND t_us = 120000000"),
                 20000);
    /* the store writes into it as into a new one: a step in two parts adds up, and expires */
    scene_history_row_t more = { .player_id = 9, .t_us = 120000000, .exchanges = 5, .rtt_min_us = 18000,
                                 .rtt_p50_us = 20500, .rtt_max_us = 26000, .jitter_us = 200 };
    cr_assert_eq(scene_store_put_all(s, NULL, 0, &more, 1, err), 0, "%s", err);
    cr_assert_eq(query_int("SELECT exchanges FROM player_latency_history WHERE player_id = 9 AND t_us = 120000000"), 60);
    cr_assert_eq(scene_store_expire_history(s, 100000000, 1000), 2, "the two rows of the first step");
    scene_store_destroy(&s);
    s = scene_store_new(path, err);   /* a second open finds nothing to move */
    cr_assert_not_null(s, "%s", err);
    cr_assert_eq(scene_store_history_moved(s, &took_us), 0);
    cr_assert_eq(query_int("SELECT count(*) FROM player_latency_history"), 1);
    scene_store_destroy(&s);
}
