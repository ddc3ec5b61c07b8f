/* scene/store.c - see store.h. */
#include "store.h"

#include <errno.h>
#include <libgen.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "clock.h"
#include "db.h"
#include "err.h"

enum { UPDATE, INSERT, SELECT, BEGIN, COMMIT, ROLLBACK, HISTORY, CLOSE_STEP, EXPIRE, NSQL };   /* the statements, in the order of sql[] */

struct scene_store_t {
    sqlite3      *db;
    sqlite3_stmt *st[NSQL];
    int64_t       moved, moved_us;   /* history rows moved to today's layout at the open, and how long it took */
};

#define COLUMNS SCENE_DB_COLUMNS

/* player_latency_history's columns and key (see setup) */
#define HISTORY_TABLE \
    "(player_id INTEGER NOT NULL, t_us INTEGER NOT NULL, exchanges INTEGER NOT NULL, lost INTEGER NOT NULL," \
    " rtt_min_us INTEGER NOT NULL, rtt_p50_us INTEGER NOT NULL, rtt_max_us INTEGER NOT NULL," \
    " jitter_us INTEGER NOT NULL, PRIMARY KEY (t_us, player_id)) WITHOUT ROWID;"

/* The open history step's columns on player_latency (scene/history.h): its
 * start (0: none), and the figures so far of player_latency_history's row. */
#define STEP_COLUMNS "step_t_us, step_exchanges, step_lost, step_rtt_min_us, step_rtt_p50_us, step_rtt_max_us, step_jitter_us"
#define STEP_TABLE \
    "step_t_us INTEGER NOT NULL DEFAULT 0, step_exchanges INTEGER NOT NULL DEFAULT 0," \
    " step_lost INTEGER NOT NULL DEFAULT 0, step_rtt_min_us INTEGER NOT NULL DEFAULT 0," \
    " step_rtt_p50_us INTEGER NOT NULL DEFAULT 0, step_rtt_max_us INTEGER NOT NULL DEFAULT 0," \
    " step_jitter_us INTEGER NOT NULL DEFAULT 0"
#define STEP_CLEAR \
    "step_t_us = 0, step_exchanges = 0, step_lost = 0, step_rtt_min_us = 0, step_rtt_p50_us = 0," \
    " step_rtt_max_us = 0, step_jitter_us = 0"

/* How a step's row meets one already stored for the same step, when a step
 * comes in parts (scene/history.h), or from two scenes when one stopped in
 * the middle of it: the counts add up; min and max are the extremes of all
 * parts; the median and the jitter are the latest part's that has round
 * trips (of the whole step so far, as one scene saw it). */
#define HISTORY_MERGE \
    " ON CONFLICT(player_id, t_us) DO UPDATE SET" \
    " exchanges = exchanges + excluded.exchanges, lost = lost + excluded.lost," \
    " rtt_min_us = CASE WHEN rtt_min_us = 0 THEN excluded.rtt_min_us WHEN excluded.rtt_min_us = 0 THEN rtt_min_us" \
    "  ELSE min(rtt_min_us, excluded.rtt_min_us) END," \
    " rtt_p50_us = CASE WHEN excluded.rtt_p50_us = 0 THEN rtt_p50_us ELSE excluded.rtt_p50_us END," \
    " rtt_max_us = max(rtt_max_us, excluded.rtt_max_us)," \
    " jitter_us = CASE WHEN excluded.rtt_p50_us = 0 THEN jitter_us ELSE excluded.jitter_us END"

/* At the open, the steps a SIGKILL left open go to the history, in one
 * transaction with their clearing (the scene starts every step anew). */
static const char *const close_open_steps =
    "BEGIN;"
    "INSERT INTO player_latency_history (player_id, t_us, exchanges, lost, rtt_min_us, rtt_p50_us, rtt_max_us,"
    " jitter_us) SELECT player_id, " STEP_COLUMNS " FROM player_latency WHERE step_t_us != 0" HISTORY_MERGE ";"
    "UPDATE player_latency SET " STEP_CLEAR " WHERE step_t_us != 0;"
    "COMMIT;";

/* 64 KiB pages (SQLite's largest; its default is 4 KiB), for a database made
 * new (a page size is fixed once a WAL database has a page). Players sync at
 * times of their own, so a flush's rows are scattered over player_latency,
 * and at 100,000 players and 100,000 exchanges/s every 100 ms flush dirtied
 * most of its pages: with few large pages the commit writes the WAL in a
 * few large frames, and a row's seek passes fewer levels. The store thread
 * went from 20-21 % of a core to 15-17 % (bench/RESULTS.md section 9e). */
#define PAGE_SIZE "PRAGMA page_size=65536;"

/* A 64 MiB page cache (SQLite's default is 2 MiB): a flush dirties pages all
 * over player_latency and its index (about 56 bytes a player), and a cache
 * smaller than they are spills dirty pages to the WAL in the middle of the
 * transaction, to read and write them again a row later. With 100,000
 * players at 300,000 exchanges/s that wrote 570 MB/s; with the cache, 25
 * MB/s (bench/RESULTS.md section 9). Enough for about a million players. */
static const char *setup =
    PAGE_SIZE
    "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA cache_size=-65536;"
    "CREATE TABLE IF NOT EXISTS player_latency ("
    " player_id INTEGER PRIMARY KEY,"
    " rtt_us INTEGER NOT NULL, srtt_us INTEGER NOT NULL, rttvar_us INTEGER NOT NULL,"
    " min_rtt_us INTEGER NOT NULL, samples INTEGER NOT NULL, invalid INTEGER NOT NULL,"
    " lost INTEGER NOT NULL, client_rtt_us INTEGER NOT NULL, client_offset_us INTEGER NOT NULL,"
    " updated_at_us INTEGER NOT NULL, lag_flag INTEGER NOT NULL DEFAULT 0,"
    " lag_strikes INTEGER NOT NULL DEFAULT 0, online INTEGER NOT NULL DEFAULT 0,"
    " clock_rate_ppm INTEGER, speed_flag INTEGER NOT NULL DEFAULT 0, " STEP_TABLE ");"
    /* No index on srtt_us: every upsert moved the player's entry in it, 40 % of
     * the store thread at 300k/s (RESULTS 9d); the admin's ranks scan instead. */
    "DROP INDEX IF EXISTS player_latency_srtt;"
    "UPDATE player_latency SET online = 0 WHERE online != 0;"
    /* Ordered by step, then player: a step's rows go in at the table's end
     * and retention deletes from its start. Keyed by player first, each step
     * put a row inside every player's run, dirtying a page a player: with
     * an hour of history for 100,000 players, 8-25 us a row and 130 MB of
     * WAL a step, against 1.4-1.8 us and 22-58 MB (RESULTS 9f). A
     * player's range is read a step at a time (scene/reader.c). */
    "CREATE TABLE IF NOT EXISTS player_latency_history " HISTORY_TABLE;

/* A history table of the first layout (a rowid table keyed by player, then
 * step, with an index on t_us) is moved into the one above, in one
 * transaction, the first time a scene opens it. */
static const char *const old_history = "SELECT 1 FROM sqlite_master WHERE name = 'player_latency_history_t'";
static const char *const move_history =
    "BEGIN;"
    "ALTER TABLE player_latency_history RENAME TO player_latency_history_old;"
    "DROP INDEX player_latency_history_t;"
    "CREATE TABLE player_latency_history " HISTORY_TABLE
    "INSERT INTO player_latency_history SELECT player_id, t_us, exchanges, lost, rtt_min_us, rtt_p50_us,"
    " rtt_max_us, jitter_us FROM player_latency_history_old ORDER BY t_us, player_id;"
    "DROP TABLE player_latency_history_old;"
    "COMMIT;";

/* Columns added since the table's first version, for a database made then. */
static const char *const migrate[] = {
    "ALTER TABLE player_latency ADD COLUMN clock_rate_ppm INTEGER",
    "ALTER TABLE player_latency ADD COLUMN speed_flag INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE player_latency ADD COLUMN step_t_us INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE player_latency ADD COLUMN step_exchanges INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE player_latency ADD COLUMN step_lost INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE player_latency ADD COLUMN step_rtt_min_us INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE player_latency ADD COLUMN step_rtt_p50_us INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE player_latency ADD COLUMN step_rtt_max_us INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE player_latency ADD COLUMN step_jitter_us INTEGER NOT NULL DEFAULT 0",
    NULL,
};

static const char *const sql[NSQL] = {
    /* an UPDATE first, and an INSERT only for a player it did not find: a
     * flush is nearly all players already stored, and for them the UPDATE
     * runs about half the bytecode of an UPSERT, which checks the new row's
     * NOT NULLs for the INSERT, then copies the values and checks them again
     * for its DO UPDATE (RESULTS 9f) */
    "UPDATE player_latency SET rtt_us=?2, srtt_us=?3, rttvar_us=?4, min_rtt_us=?5, samples=?6, invalid=?7,"
    " lost=?8, client_rtt_us=?9, client_offset_us=?10, updated_at_us=?11, lag_flag=?12, lag_strikes=?13,"
    " online=?14, clock_rate_ppm=?15, speed_flag=?16, step_t_us=?17, step_exchanges=?18, step_lost=?19,"
    " step_rtt_min_us=?20, step_rtt_p50_us=?21, step_rtt_max_us=?22, step_jitter_us=?23 WHERE player_id=?1",
    "INSERT INTO player_latency (" COLUMNS ", " STEP_COLUMNS ") VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    "SELECT " COLUMNS " FROM player_latency WHERE player_id = ?",
    "BEGIN",
    "COMMIT",
    "ROLLBACK",
    /* a closed step, and its clearing from the player's row if the row
     * still holds it open (the row's next write may be a flush later) */
    "INSERT INTO player_latency_history (player_id, t_us, exchanges, lost, rtt_min_us, rtt_p50_us, rtt_max_us,"
    " jitter_us) VALUES (?,?,?,?,?,?,?,?)" HISTORY_MERGE,
    "UPDATE player_latency SET " STEP_CLEAR " WHERE player_id = ?1 AND step_t_us = ?2",
    "DELETE FROM player_latency_history WHERE (t_us, player_id) IN"
    " (SELECT t_us, player_id FROM player_latency_history WHERE t_us < ? LIMIT ?)",
};

/* Makes the database's folder if it is missing (one level, like ./data). */
static void make_folder(const char *path)
{
    char *copy = strdup(path);
    if (!copy)
        return;
    char *dir = dirname(copy);
    if (strcmp(dir, ".") != 0 && strcmp(dir, "/") != 0)
        mkdir(dir, 0750);
    free(copy);
}

/* Moves a history table of the first layout into today's, if there is one. */
static int upgrade_history(scene_store_t *self, char *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(self->db, old_history, -1, &st, NULL) != SQLITE_OK)
        return 0;
    bool old = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    if (!old)
        return 0;
    int64_t t0 = ts_clock_mono_us();
    if (sqlite3_exec(self->db, move_history, NULL, NULL, NULL) == SQLITE_OK) {
        self->moved = sqlite3_changes64(self->db);   /* the INSERT's: DROP and COMMIT change no rows */
        self->moved_us = ts_clock_mono_us() - t0;
        return 0;
    }
    snprintf(err, TS_ERR_MAX, "cannot move the latency history to its new layout: %s", sqlite3_errmsg(self->db));
    sqlite3_exec(self->db, "ROLLBACK", NULL, NULL, NULL);
    return -1;
}

/* The steps a SIGKILL left open in player_latency go to the history. */
static int close_steps(scene_store_t *self, char *err)
{
    if (sqlite3_exec(self->db, close_open_steps, NULL, NULL, NULL) == SQLITE_OK)
        return 0;
    char why[TS_ERR_MAX / 2];
    snprintf(err, TS_ERR_MAX, "cannot close the history steps left open: %s", scene_db_why(self->db, why, sizeof why));
    sqlite3_exec(self->db, "ROLLBACK", NULL, NULL, NULL);
    return -1;
}

/* The checkpoint threshold is in pages, and a page is 64 KiB here (4 KiB
 * in a database made before PAGE_SIZE): the default 1,000 pages let the
 * WAL grow to 64 MiB, which refilled a disk freed by an operator in 3 s. */
int scene_store_bound_wal(scene_store_t *self, int64_t bytes, char *err)
{
    sqlite3_stmt *st;
    int64_t page = 0;
    if (sqlite3_prepare_v2(self->db, "PRAGMA page_size", -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        page = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    char pragmas[128], why[TS_ERR_MAX / 2];
    int64_t pages = page > 0 ? bytes / page : 0;
    snprintf(pragmas, sizeof pragmas, "PRAGMA wal_autocheckpoint=%lld; PRAGMA journal_size_limit=%lld;",
             (long long) (pages > 1 ? pages : 1), (long long) bytes);
    if (page > 0 && sqlite3_exec(self->db, pragmas, NULL, NULL, NULL) == SQLITE_OK)
        return 0;
    snprintf(err, TS_ERR_MAX, "cannot bound the write-ahead log: %s", scene_db_why(self->db, why, sizeof why));
    return -1;
}

int64_t scene_store_history_moved(const scene_store_t *self, int64_t *took_us)
{
    *took_us = self->moved_us;
    return self->moved;
}

scene_store_t *scene_store_new(const char *path, char *err)
{
    scene_store_t *self = calloc(1, sizeof *self);
    if (!self) {
        snprintf(err, TS_ERR_MAX, "out of memory");
        return NULL;
    }
    make_folder(path);
    if (scene_db_open(&self->db, path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, setup, migrate, sql, self->st, NSQL,
                      "open", err) < 0) {
        free(self);
        return NULL;
    }
    if (upgrade_history(self, err) < 0 || close_steps(self, err) < 0 ||
        scene_store_bound_wal(self, SCENE_STORE_WAL_BYTES, err) < 0) {
        scene_store_destroy(&self);
        return NULL;
    }
    return self;
}

void scene_store_destroy(scene_store_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    scene_db_close(&(*self_p)->db, (*self_p)->st, NSQL);
    free(*self_p);
    *self_p = NULL;
}

static int step_once(sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc;
}

/* Binds r to st's parameters, in the order of COLUMNS then STEP_COLUMNS, and
 * steps it once. */
static int bind_step(sqlite3_stmt *st, const scene_row_t *r)
{
    int next = scene_db_bind_row(st, r) + 1;
    const scene_history_row_t *h = &r->step;
    const int64_t step[] = { h->t_us, h->exchanges, h->lost, h->rtt_min_us, h->rtt_p50_us, h->rtt_max_us, h->jitter_us };
    for (int f = 0; f < 7; f++)
        sqlite3_bind_int64(st, next + f, step[f]);   /* all 0 when no step is open */
    return step_once(st);
}

int scene_store_put(scene_store_t *self, const scene_row_t *rows, size_t n, char *err)
{
    return scene_store_put_all(self, rows, n, NULL, 0, err);
}

int scene_store_put_all(scene_store_t *self, const scene_row_t *rows, size_t n, const scene_history_row_t *hist,
                        size_t nhist, char *err)
{
    char why[TS_ERR_MAX / 2];
    if (step_once(self->st[BEGIN]) != SQLITE_DONE) {
        snprintf(err, TS_ERR_MAX, "BEGIN: %s", scene_db_why(self->db, why, sizeof why));
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        int rc = bind_step(self->st[UPDATE], &rows[i]);
        if (rc == SQLITE_DONE && sqlite3_changes(self->db) == 0)
            rc = bind_step(self->st[INSERT], &rows[i]);
        if (rc != SQLITE_DONE) {
            snprintf(err, TS_ERR_MAX, "UPDATE or INSERT: %s", scene_db_why(self->db, why, sizeof why));
            step_once(self->st[ROLLBACK]);
            return -1;
        }
    }
    /* after the rows: a row that still holds a step open, written in this
     * flush before the step's end came, is cleared by CLOSE_STEP */
    for (size_t i = 0; i < nhist; i++) {
        const scene_history_row_t *h = &hist[i];
        const int64_t v[] = { (int64_t) h->player_id, h->t_us, h->exchanges, h->lost, h->rtt_min_us, h->rtt_p50_us,
                              h->rtt_max_us, h->jitter_us };
        for (int f = 0; f < 8; f++)
            sqlite3_bind_int64(self->st[HISTORY], f + 1, v[f]);
        sqlite3_bind_int64(self->st[CLOSE_STEP], 1, (int64_t) h->player_id);
        sqlite3_bind_int64(self->st[CLOSE_STEP], 2, h->t_us);
        if (step_once(self->st[HISTORY]) != SQLITE_DONE || step_once(self->st[CLOSE_STEP]) != SQLITE_DONE) {
            snprintf(err, TS_ERR_MAX, "HISTORY: %s", scene_db_why(self->db, why, sizeof why));
            step_once(self->st[ROLLBACK]);
            return -1;
        }
    }
    if (step_once(self->st[COMMIT]) != SQLITE_DONE) {
        snprintf(err, TS_ERR_MAX, "COMMIT: %s", scene_db_why(self->db, why, sizeof why));
        step_once(self->st[ROLLBACK]);
        return -1;
    }
    return 0;
}

int scene_store_get(scene_store_t *self, uint64_t player_id, scene_row_t *row)
{
    return scene_db_get_row(self->st[SELECT], player_id, row);
}

int scene_store_expire_history(scene_store_t *self, int64_t before_us, int limit)
{
    sqlite3_bind_int64(self->st[EXPIRE], 1, before_us);
    sqlite3_bind_int(self->st[EXPIRE], 2, limit);
    return step_once(self->st[EXPIRE]) == SQLITE_DONE ? sqlite3_changes(self->db) : -1;
}
