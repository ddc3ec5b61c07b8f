/* scene/worker.h - one player worker thread. It owns the players whose
 * ts_shard_mix(player_id) % workers is its index, so no player is shared
 * between threads and none needs a lock. It never touches SQLite: rows go
 * to the writer and come back from it as messages (scene/wire.h). */
#ifndef SCENE_WORKER_H
#define SCENE_WORKER_H

#include <stdint.h>

#include "log.h"
#include "player.h"
#include "stats.h"

#define SCENE_LOAD_RETRY_US 1000000   /* a stored row not in by then is asked for again */
#define SCENE_LOAD_ASKS     3         /* asks before the player starts afresh */

typedef struct {
    int              index, count;
    int64_t          idle_us;     /* a player silent this long leaves memory */
    scene_lag_rule_t lag;
    scene_speed_rule_t speed;
    int64_t          history_step_us;
    int64_t          hold_us;     /* dirty rows wait this long for more (scene_hold_us) */
    ts_log_t        *log;
    scene_stats_t   *stats;
} scene_worker_options_t;

typedef struct scene_worker_t scene_worker_t;

/* Starts the thread; returns NULL when it cannot. options is copied. */
scene_worker_t *scene_worker_new(const scene_worker_options_t *options);
/* Sends every dirty row to the writer, then stops the thread. */
void scene_worker_destroy(scene_worker_t **self_p);

/* The worker index of a player among count workers. */
int scene_worker_of(uint64_t player_id, int count);

#endif
