/* scene/store.h - the SQLite latency store of one shard: WAL mode,
 * synchronous=NORMAL, a prepared UPDATE (INSERT for a new player), one
 * transaction per batch.
 * Not thread-safe: the writer thread owns it. */
#ifndef SCENE_STORE_H
#define SCENE_STORE_H

#include <stddef.h>

#include "err.h"
#include "history.h"
#include "row.h"

typedef struct scene_store_t scene_store_t;

/* Opens (creating the file, its folder's last level and the table) and
 * marks every row offline, since no session survives a restart. Returns
 * NULL with a reason in err (TS_ERR_MAX bytes). */
scene_store_t *scene_store_new(const char *path, char *err);
void scene_store_destroy(scene_store_t **self_p);

/* The most the write-ahead log may hold before it is checkpointed into the
 * database, and the size its file is cut back to after (SQLite's
 * wal_autocheckpoint, in pages, and journal_size_limit): a WAL that cannot
 * outgrow this on its own, so a disk freed stays free. A new store starts
 * at SCENE_STORE_WAL_BYTES. Returns 0, or -1 with the reason in err. */
#define SCENE_STORE_WAL_BYTES (16LL << 20)
int scene_store_bound_wal(scene_store_t *self, int64_t bytes, char *err);
/* How many history rows the open moved from the first layout of
 * player_latency_history into today's (0: nothing to move), and how long it
 * took: about 1.2 s a million rows, once, for the scene to log. */
int64_t scene_store_history_moved(const scene_store_t *self, int64_t *took_us);

/* Writes rows in one transaction. Returns 0, or -1 with the reason in err;
 * nothing is written then. */
int scene_store_put(scene_store_t *self, const scene_row_t *rows, size_t n, char *err);
/* The same with history rows (table player_latency_history) in the same
 * transaction; a step written twice adds up. */
int scene_store_put_all(scene_store_t *self, const scene_row_t *rows, size_t n, const scene_history_row_t *hist,
                        size_t nhist, char *err);
/* Deletes up to limit history rows older than before_us (a small batch,
 * never one long transaction). Returns how many, or -1 on an error. */
int scene_store_expire_history(scene_store_t *self, int64_t before_us, int limit);

/* Returns 1 with *row filled, 0 when the player has no row, -1 on error. */
int scene_store_get(scene_store_t *self, uint64_t player_id, scene_row_t *row);

#endif
