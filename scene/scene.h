/* scene/scene.h - a scene shard: the ZeroMQ ROUTER that gates connect to,
 * its worker threads, its store thread and its admin HTTP server. The
 * calling thread routes. */
#ifndef SCENE_SCENE_H
#define SCENE_SCENE_H

#include <stdint.h>

#include "err.h"
#include "log.h"
#include "metrics.h"
#include "player.h"

typedef struct {
    const char      *bind;       /* ZeroMQ endpoint */
    const char      *db;         /* SQLite path */
    const char      *admin;      /* admin HTTP HOST:PORT */
    const char      *admin_token;  /* bearer token, or NULL */
    int              workers;
    int              flush_ms;
    int64_t          idle_us;
    scene_lag_rule_t lag;
    scene_speed_rule_t speed;
    int64_t          history_step_us;   /* a latency history row per player per step */
    int64_t          history_keep_us;   /* history rows older than this are deleted */
    int64_t          wal_bytes;         /* the write-ahead log's bound (0: SCENE_STORE_WAL_BYTES) */
    const char      *curve_cert;   /* CurveZMQ secret certificate (zcert file), or NULL: no encryption */
    const char      *curve_gates;  /* folder of the gates' public certificates allowed in, or NULL: any gate */
} scene_options_t;

typedef struct scene_t scene_t;

/* Opens the store, starts the threads and binds. Returns NULL with a
 * reason in err (TS_ERR_MAX bytes). log and metrics must outlive the scene. */
scene_t *scene_new(const scene_options_t *options, ts_log_t *log, ts_metrics_t *metrics, char *err);
/* Stops workers (their rows go to the store), then the store (which
 * flushes everything), if scene_run has not; frees the rest. */
void scene_destroy(scene_t **self_p);

#define SCENE_EXIT_ROWS_LOST 3   /* scene_run's status when rows could not be written at the stop */

/* Routes until SIGTERM or SIGINT (which the caller must have blocked),
 * then stops the workers and the store. Returns 0, or
 * SCENE_EXIT_ROWS_LOST when the store failed to the end (5 s of retries)
 * and rows were lost (logged with how many). */
int scene_run(scene_t *self);

#endif
