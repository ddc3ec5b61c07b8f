/* scene/move.h - players moving to another shard when the shard set grows
 * (ticksync-admin reshard; DESIGN "Growing the shard set").
 *
 * Once the gates route by the new count, a moved player plays on its new
 * shard, which starts it afresh, and its old shard lets it go: offline,
 * its open history step closed, and idle past --idle-s, it leaves the old
 * shard's memory for good. Then:
 *
 * - release, on the old shard: a batch of the players whose id now hashes
 *   to another shard and that no worker holds (offline, no open step,
 *   unchanged since before), their rows and whole history read and
 *   deleted in one transaction on a connection of the admin thread's own;
 * - adopt, on the new shard: each history row is added to the store as a
 *   step written twice is (the counts add up), and the row is merged into
 *   the player's own, by the worker that owns it (scene_move_merge).
 *
 * The wire form is JSON: {"players": [{"row": {column: integer, ...},
 * "history": [{"t_us", "exchanges", "lost", "rtt_min_us", "rtt_p50_us",
 * "rtt_max_us", "jitter_us"}, ...]}, ...]}, every column as stored. */
#ifndef SCENE_MOVE_H
#define SCENE_MOVE_H

#include <jansson.h>
#include <stdint.h>

#include "err.h"
#include "history.h"
#include "row.h"

typedef struct scene_move_t scene_move_t;

/* Opens path read-write (the store made it). NULL with a reason in err. */
scene_move_t *scene_move_new(const char *path, char *err);
void scene_move_destroy(scene_move_t **self_p);

typedef struct {
    uint32_t shards, shard;    /* the new shard count, and this shard's place in it */
    int      limit;            /* players in the batch, at most */
    int64_t  quiet_before_us;  /* server time: a player changed since may still be in a worker's memory */
} scene_move_ask_t;

/* Releases one batch. Returns {"players": [...], "released": n, "held": h,
 * "left": l} (held: players that belong elsewhere but are still active
 * here; left: releasable ones past limit), or NULL with a reason in err;
 * nothing is deleted then. */
json_t *scene_move_release(scene_move_t *self, const scene_move_ask_t *ask, char *err);

/* One player of the wire form into row and its history (*nhist rows into
 * hist, at most cap; more is an error). Returns 0, or -1 with a reason in
 * err. */
int scene_move_player_of(const json_t *player, scene_row_t *row, scene_history_row_t *hist, size_t cap,
                         size_t *nhist, char *err);

/* The row a shard keeps for a player it adopts: cur is its own (measured
 * here since the move, or empty), old the released one. Counts add up and
 * the least round trip is the least of both; the smoothed state, the
 * client's figures and the flags stay cur's once it has samples (they are
 * newer), else come from old; online and the open step stay cur's. */
void scene_move_merge(scene_row_t *cur, const scene_row_t *old);

#endif
