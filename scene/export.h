/* scene/export.h - a shard's latency history shipped to ClickHouse, for
 * questions over the whole fleet and over weeks (ticksync-export; DESIGN
 * "Fleet history").
 *
 * It reads the shard's SQLite file read-only (a WAL reader never holds the
 * scene's writer up) and sends each history row once it is final, in
 * (t_us, player_id) order, as RowBinary INSERTs into a ReplacingMergeTree
 * keyed by (t_us, player_id), so a row sent twice (a player's step sent
 * again by the shard it moved to) stands once in answers read with FINAL.
 * A row is final once no part of its step can still come:
 * its step ended more than a flush margin ago, and no player's row still
 * holds an open step that old (a step left open by a killed scene is moved
 * into the history when it starts again). The position, where the next
 * pass begins, is the last row of this shard in ClickHouse itself, read at
 * the start and after every failure: what ClickHouse holds of a shard is
 * always a prefix of its rows in that order, so a restarted exporter goes
 * on right after it, and one whose ClickHouse lost its data sends again
 * from there, never skips. */
#ifndef SCENE_EXPORT_H
#define SCENE_EXPORT_H

#include <stdint.h>

#include "err.h"

typedef struct {
    const char *db;           /* the shard's SQLite file */
    int         shard;        /* its number, in the gates' --scenes order */
    const char *clickhouse;   /* http://HOST:PORT */
    const char *database;     /* ClickHouse database ("ticksync"), made if missing */
    int64_t     step_us;      /* the scene's --history-step-s */
    int64_t     settle_us;    /* a flush and the workers' hold, with room to spare */
    int         batch_rows;   /* rows an INSERT */
    int         timeout_ms;   /* each ClickHouse statement */
} scene_export_options_t;

typedef struct scene_export_t scene_export_t;

/* Returns NULL with a reason in err (a bad URL, out of memory). Opens
 * nothing yet: the first pass does. */
scene_export_t *scene_export_new(const scene_export_options_t *opt, char *err);
void scene_export_destroy(scene_export_t **self_p);

/* One pass at server time now_us: opens the file and the table if need be,
 * reads the position from ClickHouse after a start or a failure, then sends
 * every final row past it. Returns the rows sent (0: none was due), or -1
 * with a reason in err; what ClickHouse took before the failure stays sent. */
long scene_export_pass(scene_export_t *self, int64_t now_us, char *err);

/* The step the next row sent will be in, at the least (server time, µs);
 * every row before it is in ClickHouse. 0 before the first pass. */
int64_t scene_export_position(const scene_export_t *self);

/* The table's name in ClickHouse ("<database>.player_latency_history"),
 * the SQLite table's; ticksync-admin fleet (tools/, which includes nothing
 * of scene/) names it the same. */
#define SCENE_EXPORT_TABLE "player_latency_history"

#endif
