/* tests/test_db.c - the SQLite plumbing the store and the reader share:
 * open + setup + prepare in one call with a clear reason on failure, and
 * one player's row by id. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "db.h"
#include "err.h"
#include "store.h"

static char path[64];

static void init(void)
{
    snprintf(path, sizeof path, "/tmp/ts-test-db-%d.db", (int) getpid());
    unlink(path);
}

static void fini(void)
{
    char more[80];
    unlink(path);
    snprintf(more, sizeof more, "%s-wal", path);
    unlink(more);
    snprintf(more, sizeof more, "%s-shm", path);
    unlink(more);
}

TestSuite(db, .init = init, .fini = fini);

Test(db, opens_sets_up_prepares_and_reads_a_row)
{
    char err[TS_ERR_MAX];
    scene_store_t *store = scene_store_new(path, err);   /* makes the table */
    cr_assert_not_null(store, "%s", err);
    scene_row_t row = { .player_id = 42, .rtt_us = 1000, .srtt_us = 2000, .samples = 3 };
    cr_assert_eq(scene_store_put(store, &row, 1, err), 0, "%s", err);
    scene_store_destroy(&store);

    static const char *const sql[] = { "SELECT " SCENE_DB_COLUMNS " FROM player_latency WHERE player_id = ?" };
    sqlite3 *db = NULL;
    sqlite3_stmt *st[1] = { NULL };
    cr_assert_eq(scene_db_open(&db, path, SQLITE_OPEN_READONLY, "SELECT 1", NULL, sql, st, 1, "read", err), 0, "%s", err);
    scene_row_t got;
    cr_assert_eq(scene_db_get_row(st[0], 42, &got), 1);
    cr_assert_eq(got.player_id, 42);
    cr_assert_eq(got.srtt_us, 2000);
    cr_assert_eq(got.samples, 3);
    cr_assert_eq(scene_db_get_row(st[0], 43, &got), 0, "no such player");
    cr_assert_eq(scene_db_get_row(st[0], 42, &got), 1, "the statement was reset for the next call");
    scene_db_close(&db, st, 1);
    cr_assert_null(db);
    cr_assert_null(st[0]);
}

Test(db, a_failure_says_what_and_where_and_leaves_nothing_open)
{
    char err[TS_ERR_MAX];
    static const char *const sql[] = { "SELECT 1", "SELECT nonsense FROM nowhere" };
    sqlite3 *db = NULL;
    sqlite3_stmt *st[2] = { NULL, NULL };
    cr_assert_eq(scene_db_open(&db, path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL, NULL, sql, st, 2, "open", err), -1);
    cr_assert(strstr(err, "cannot open database '/tmp/ts-test-db-"), "%s", err);
    cr_assert(strstr(err, "no such table: nowhere"), "%s", err);
    cr_assert_null(db);
    cr_assert_null(st[0], "the statement prepared before the failure is finalized");
    cr_assert_eq(scene_db_open(&db, "/nonexistent/dir/x.db", SQLITE_OPEN_READONLY, NULL, NULL, sql, st, 1, "read", err), -1);
    cr_assert(strstr(err, "cannot read database '/nonexistent/dir/x.db'"), "%s", err);
}

Test(db, a_row_bound_and_read_back_is_the_same_row)
{
    char err[TS_ERR_MAX];
    static const char *const sql[] = {
        "INSERT INTO row (" SCENE_DB_COLUMNS ") VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        "SELECT " SCENE_DB_COLUMNS " FROM row WHERE player_id = ?",
    };
    sqlite3 *db = NULL;
    sqlite3_stmt *st[2] = { NULL, NULL };
    cr_assert_eq(scene_db_open(&db, path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                               "CREATE TABLE row (" SCENE_DB_COLUMNS ")", NULL, sql, st, 2, "open", err), 0, "%s", err);
    const scene_row_t rows[] = {
        { .player_id = 7, .rtt_us = 1, .srtt_us = 2, .rttvar_us = 3, .min_rtt_us = 4, .samples = 5, .invalid = 6,
          .lost = 7, .client_rtt_us = 8, .client_offset_us = -9, .updated_at_us = 10, .lag_flag = 1,
          .lag_strikes = 12, .online = 1, .clock_rate_ppm = -14, .clock_rate_known = 1, .speed_flag = 1 },
        { .player_id = 8, .srtt_us = 20, .clock_rate_ppm = 0, .clock_rate_known = 0 },   /* rate stored as NULL */
    };
    for (size_t i = 0; i < 2; i++) {
        cr_assert_eq(scene_db_bind_row(st[0], &rows[i]), 16, "one parameter a column");
        cr_assert_eq(sqlite3_step(st[0]), SQLITE_DONE, "%s", sqlite3_errmsg(db));
        sqlite3_reset(st[0]);
    }
    for (size_t i = 0; i < 2; i++) {
        scene_row_t got;
        cr_assert_eq(scene_db_get_row(st[1], rows[i].player_id, &got), 1);
        cr_assert(memcmp(&got, &rows[i], sizeof got) == 0, "row %zu comes back as it went in", i);
    }
    scene_db_close(&db, st, 2);
}
