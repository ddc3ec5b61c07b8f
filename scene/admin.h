/* scene/admin.h - the shard's admin HTTP API (DESIGN.md "Admin API"):
 * /v1/players/{id}, /v1/players?order=&limit=, /v1/stats, /v1/backup,
 * the reshard routes (POST /v1/reshard/release and /v1/reshard/adopt,
 * scene/move.h), /metrics, /healthz. libmicrohttpd serves it on one thread
 * of its own, which owns a read-only connection to the store (and a
 * read-write one for releases); answers are as fresh as the last flush
 * (--flush-ms). */
#ifndef SCENE_ADMIN_H
#define SCENE_ADMIN_H

#include "err.h"
#include "health.h"
#include "log.h"
#include "metrics.h"

typedef struct {
    const char   *listen;    /* HOST:PORT */
    const char   *db;        /* the store's SQLite file, already created */
    const char   *token;     /* bearer token for /v1 and /metrics; NULL: none */
    ts_metrics_t *metrics;   /* rendered at /metrics; borrowed */
    ts_log_t     *log;
    int64_t       history_step_us;   /* for the history's step_s */
    scene_health_t *health;  /* the store's state, for /healthz; borrowed, may be NULL */
    int           workers;   /* the player workers, for players adopted from another shard */
    int64_t       idle_us;   /* --idle-s: a player unchanged this long has left the workers' memory */
} scene_admin_options_t;

typedef struct scene_admin_t scene_admin_t;

/* Starts serving. Returns NULL with a reason in err (TS_ERR_MAX bytes). */
scene_admin_t *scene_admin_new(const scene_admin_options_t *options, char *err);
/* Stops the server thread (waiting for a request in progress). */
void scene_admin_destroy(scene_admin_t **self_p);

#define SCENE_ADMIN_LIMIT_MAX 1000   /* most players one list returns */
#define SCENE_ADMIN_POINTS_MAX 10000 /* most history steps one answer returns */
#define SCENE_ADMIN_BODY_MAX (64u << 20)   /* the largest batch of players adopted at once */
#define SCENE_ADMIN_RELEASE_MAX 10000      /* most players one release returns */

#endif
