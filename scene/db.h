/* scene/db.h - what the store (read-write, the writer thread's) and the
 * reader (read-only, the admin thread's) do alike with their SQLite
 * connection: open it with a busy timeout, run its setup, prepare its
 * statements, close it; and the layout of a player_latency row, bound to
 * a statement and read back from one. */
#ifndef SCENE_DB_H
#define SCENE_DB_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "row.h"

/* The columns of a whole row, in scene_row_t's order. */
#define SCENE_DB_COLUMNS "player_id, rtt_us, srtt_us, rttvar_us, min_rtt_us, samples, invalid, lost, " \
                         "client_rtt_us, client_offset_us, updated_at_us, lag_flag, lag_strikes, online, " \
                         "clock_rate_ppm, speed_flag"

/* Opens path with sqlite3_open_v2 flags, runs setup (SQL, or NULL), then
 * each of migrate[] (NULL-terminated, or NULL) whose failure only means it
 * was done before (ADD COLUMN on a table that has it), and prepares sql[i]
 * into st[i] for i < n. Returns 0, or -1 with
 * "cannot <verb> database 'path': why" in err (TS_ERR_MAX bytes), why
 * naming the system's reason (a file or folder that cannot be written:
 * which, and why); then whatever was opened is closed again. */
int scene_db_open(sqlite3 **db, const char *path, int flags, const char *setup, const char *const migrate[],
                  const char *const sql[], sqlite3_stmt *st[], size_t n, const char *verb, char *err);
/* SQLite's message for the last error on db, with the system's own when
 * there is one: "disk I/O error (No space left on device)". Into buf (cap
 * bytes); returns buf. */
const char *scene_db_why(sqlite3 *db, char *buf, size_t cap);
/* Finalizes st[0..n) and closes *db (NULLs them all). */
void scene_db_close(sqlite3 **db, sqlite3_stmt *st[], size_t n);

/* Binds row to st's parameters 1.. in the order of SCENE_DB_COLUMNS (an
 * unknown clock rate as NULL). Returns the last parameter bound. */
int scene_db_bind_row(sqlite3_stmt *st, const scene_row_t *row);
/* Fills row from the current result row of a SELECT of SCENE_DB_COLUMNS. */
void scene_db_row_of(sqlite3_stmt *select, scene_row_t *row);
/* Steps by_id (one parameter, player_id; SCENE_DB_COLUMNS): 1 with
 * *row filled, 0 for no such player, -1 on a database error. */
int scene_db_get_row(sqlite3_stmt *by_id, uint64_t player_id, scene_row_t *row);

#endif
