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

Test(store, unwritable_path_is_a_clear_error)
{
    char err[TS_ERR_MAX];
    scene_store_t *s = scene_store_new("/proc/ticksync/cannot.db", err);
    cr_assert_null(s);
    cr_assert(strstr(err, "cannot open database") != NULL, "%s", err);
}

Test(store, a_database_of_the_first_schema_gains_the_clock_rate_columns, .init = setup, .fini = teardown)
{
    /* the table as it was before clock_rate_ppm and speed_flag, with a row */
    char dir[64];
    snprintf(dir, sizeof dir, "/tmp/ts-store-test-%d", (int) getpid());
    mkdir(dir, 0700);
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(db,
                              "CREATE TABLE player_latency (player_id INTEGER PRIMARY KEY, rtt_us INTEGER NOT NULL,"
                              " srtt_us INTEGER NOT NULL, rttvar_us INTEGER NOT NULL, min_rtt_us INTEGER NOT NULL,"
                              " samples INTEGER NOT NULL, invalid INTEGER NOT NULL, lost INTEGER NOT NULL,"
                              " client_rtt_us INTEGER NOT NULL, client_offset_us INTEGER NOT NULL,"
                              " updated_at_us INTEGER NOT NULL, lag_flag INTEGER NOT NULL DEFAULT 0,"
                              " lag_strikes INTEGER NOT NULL DEFAULT 0, online INTEGER NOT NULL DEFAULT 0);"
                              "INSERT INTO player_latency VALUES (5, 1, 2, 3, 4, 6, 0, 0, 0, 0, 9, 0, 0, 0);",
                              NULL, NULL, NULL),
                 SQLITE_OK);
    sqlite3_close(db);
    char err[TS_ERR_MAX];
    scene_store_t *s = scene_store_new(path, err);
    cr_assert_not_null(s, "%s", err);
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
}
