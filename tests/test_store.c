/* tests/test_store.c - scene/store: batches, reload after reopening, WAL. */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
