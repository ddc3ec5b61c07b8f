/* scene/reader.h - the read side of a shard's store, for the admin API: its
 * own read-only SQLite connection, so queries never wait for the writer
 * (WAL readers see the last committed flush). Not thread-safe: one thread
 * (the admin server's) owns it. */
#ifndef SCENE_READER_H
#define SCENE_READER_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"
#include "history.h"
#include "row.h"

typedef struct scene_reader_t scene_reader_t;

/* Shard-wide figures. Delay is srtt/2 over players with a valid sample. */
typedef struct {
    int64_t known, online, measured;      /* rows; online now; with a valid sample */
    int64_t samples, invalid, lost;       /* summed over every row */
    int64_t delay_p50_us, delay_p90_us, delay_p99_us, delay_max_us;  /* 0 when measured is 0 */
} scene_summary_t;

/* Opens the database the store created. Returns NULL with a reason in err
 * (TS_ERR_MAX bytes). */
scene_reader_t *scene_reader_new(const char *path, char *err);
void scene_reader_destroy(scene_reader_t **self_p);

/* Returns 1 with *row filled, 0 when the player has no row, -1 on error. */
int scene_reader_get(scene_reader_t *self, uint64_t player_id, scene_row_t *row);

/* Up to max players with a valid sample, by srtt_us: highest first when
 * worst, lowest first otherwise (ties by player_id). Returns how many
 * rows were filled, or -1 on error. */
int scene_reader_top(scene_reader_t *self, bool worst, scene_row_t *rows, int max);
/* Up to max flagged players: lagging (lag_flag, worst srtt first) or
 * speeding (speed_flag, largest clock rate first). Returns how many, or -1
 * on a database error. */
int scene_reader_flagged(scene_reader_t *self, bool speed, scene_row_t *rows, int max);
/* Up to max steps of player_id's latency history starting in [from_us,
 * to_us), oldest first. Returns how many, or -1 on a database error. */
int scene_reader_history(scene_reader_t *self, uint64_t player_id, int64_t from_us, int64_t to_us,
                         scene_history_row_t *rows, int max);

/* Returns 0 with *out filled, or -1 on error. */
int scene_reader_summary(scene_reader_t *self, scene_summary_t *out);

/* True while the database answers a trivial query (for /healthz). */
bool scene_reader_ok(scene_reader_t *self);

#endif
