/* scene/db.c - see db.h. */
#include "db.h"

#include <errno.h>
#include <libgen.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"

/* The usual cause of a store that cannot be opened for writing, which
 * SQLite words as "unable to open database file" with the errno of its
 * last fallback: the file, or its folder (which takes the -wal and -shm
 * files), cannot be written. Into buf with the system's reason; false
 * when both can be. */
static bool not_writable(const char *path, char *buf, size_t cap)
{
    if (access(path, F_OK) == 0 && access(path, W_OK) != 0) {
        snprintf(buf, cap, "the file cannot be written: %s", strerror(errno));
        return true;
    }
    char *copy = strdup(path);
    const char *dir = copy ? dirname(copy) : ".";
    bool bad = access(dir, W_OK) != 0;
    if (bad)
        snprintf(buf, cap, "its folder '%s' cannot be written: %s", dir, strerror(errno));
    free(copy);
    return bad;
}

int scene_db_open(sqlite3 **db, const char *path, int flags, const char *setup, const char *const migrate[],
                  const char *const sql[], sqlite3_stmt *st[], size_t n, const char *verb, char *err)
{
    int rc = sqlite3_open_v2(path, db, flags | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc == SQLITE_OK)
        sqlite3_busy_timeout(*db, 1000);
    if (rc == SQLITE_OK && setup)
        rc = sqlite3_exec(*db, setup, NULL, NULL, NULL);
    for (size_t i = 0; rc == SQLITE_OK && migrate && migrate[i]; i++)
        sqlite3_exec(*db, migrate[i], NULL, NULL, NULL);   /* fails once done: the column is there */
    for (size_t i = 0; rc == SQLITE_OK && i < n; i++)
        rc = sqlite3_prepare_v2(*db, sql[i], -1, &st[i], NULL);
    if (rc == SQLITE_OK)
        return 0;
    char why[TS_ERR_MAX / 2];
    if (!((flags & SQLITE_OPEN_READWRITE) && not_writable(path, why, sizeof why))) {
        if (*db)
            scene_db_why(*db, why, sizeof why);
        else
            snprintf(why, sizeof why, "%s", sqlite3_errstr(rc));
    }
    snprintf(err, TS_ERR_MAX, "cannot %s database '%s': %s", verb, path, why);
    scene_db_close(db, st, n);
    return -1;
}

const char *scene_db_why(sqlite3 *db, char *buf, size_t cap)
{
    int sys = sqlite3_system_errno(db);
    if (sys)
        snprintf(buf, cap, "%s (%s)", sqlite3_errmsg(db), strerror(sys));
    else
        snprintf(buf, cap, "%s", sqlite3_errmsg(db));
    return buf;
}

void scene_db_close(sqlite3 **db, sqlite3_stmt *st[], size_t n)
{
    for (size_t i = 0; i < n; i++) {
        sqlite3_finalize(st[i]);
        st[i] = NULL;
    }
    sqlite3_close(*db);
    *db = NULL;
}

/* The integer columns after player_id, in the order of SCENE_DB_COLUMNS: where each
 * sits in a row. */
static const size_t row_fields[] = {
    offsetof(scene_row_t, rtt_us), offsetof(scene_row_t, srtt_us), offsetof(scene_row_t, rttvar_us),
    offsetof(scene_row_t, min_rtt_us), offsetof(scene_row_t, samples), offsetof(scene_row_t, invalid),
    offsetof(scene_row_t, lost), offsetof(scene_row_t, client_rtt_us), offsetof(scene_row_t, client_offset_us),
    offsetof(scene_row_t, updated_at_us), offsetof(scene_row_t, lag_flag), offsetof(scene_row_t, lag_strikes),
    offsetof(scene_row_t, online),
};
#define ROW_FIELDS ((int) (sizeof row_fields / sizeof row_fields[0]))

static int64_t *row_field(scene_row_t *r, int i)
{
    return (int64_t *) ((char *) r + row_fields[i]);
}

static int64_t row_value(const scene_row_t *r, int i)
{
    return *(const int64_t *) ((const char *) r + row_fields[i]);
}

int scene_db_bind_row(sqlite3_stmt *st, const scene_row_t *r)
{
    sqlite3_bind_int64(st, 1, (sqlite3_int64) r->player_id);
    for (int f = 0; f < ROW_FIELDS; f++)
        sqlite3_bind_int64(st, f + 2, row_value(r, f));
    if (r->clock_rate_known)
        sqlite3_bind_int64(st, ROW_FIELDS + 2, r->clock_rate_ppm);
    else
        sqlite3_bind_null(st, ROW_FIELDS + 2);
    sqlite3_bind_int64(st, ROW_FIELDS + 3, r->speed_flag);
    return ROW_FIELDS + 3;
}

void scene_db_row_of(sqlite3_stmt *st, scene_row_t *row)
{
    memset(row, 0, sizeof *row);
    row->player_id = (uint64_t) sqlite3_column_int64(st, 0);
    for (int f = 0; f < ROW_FIELDS; f++)
        *row_field(row, f) = sqlite3_column_int64(st, f + 1);
    row->clock_rate_known = sqlite3_column_type(st, ROW_FIELDS + 1) != SQLITE_NULL;
    row->clock_rate_ppm = sqlite3_column_int64(st, ROW_FIELDS + 1);
    row->speed_flag = sqlite3_column_int64(st, ROW_FIELDS + 2);
}

int scene_db_get_row(sqlite3_stmt *by_id, uint64_t player_id, scene_row_t *row)
{
    sqlite3_bind_int64(by_id, 1, (sqlite3_int64) player_id);
    int rc = sqlite3_step(by_id);
    if (rc == SQLITE_ROW)
        scene_db_row_of(by_id, row);
    sqlite3_reset(by_id);
    return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}
