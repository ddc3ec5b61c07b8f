/* scene/db.c - see db.h. */
#include "db.h"

#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "store.h"

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
    if (*db)
        scene_db_why(*db, why, sizeof why);
    else
        snprintf(why, sizeof why, "%s", sqlite3_errstr(rc));
    char *copy = strdup(path);   /* a folder that cannot be written is the usual cause: name it */
    snprintf(err, TS_ERR_MAX, "cannot %s database '%s': %s in folder '%s'", verb, path, why,
             copy ? dirname(copy) : "?");
    free(copy);
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

int scene_db_get_row(sqlite3_stmt *by_id, uint64_t player_id, scene_row_t *row)
{
    sqlite3_bind_int64(by_id, 1, (sqlite3_int64) player_id);
    int rc = sqlite3_step(by_id);
    if (rc == SQLITE_ROW)
        scene_store_row_of(by_id, row);
    sqlite3_reset(by_id);
    return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}
