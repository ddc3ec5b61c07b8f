/* scene/health.h - what the scene says about itself beyond "it routes":
 * whether its store is failing, and why, and the gates it hears from and
 * has lost. The store thread sets the first after each flush, the routing
 * thread the second; the admin thread reads both for /healthz and the
 * routing thread the first for each PONG (so the gates can show the shard
 * degraded).
 * Thread-safe: an atomic flag for the hot read, a lock around the reason. */
#ifndef SCENE_HEALTH_H
#define SCENE_HEALTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct scene_health_t scene_health_t;

scene_health_t *scene_health_new(void);
void scene_health_destroy(scene_health_t **self_p);

/* The last flush failed with reason, rows (latency and history) unwritten. */
void scene_health_store_failed(scene_health_t *self, const char *reason, int64_t rows);
/* The last flush succeeded. */
void scene_health_store_ok(scene_health_t *self);

/* True while the store is failing. */
bool scene_health_store_failing(const scene_health_t *self);
/* The same, with the reason (cap bytes, NUL-ended) and the rows unwritten. */
bool scene_health_store_why(scene_health_t *self, char *reason, size_t cap, int64_t *rows);

/* The gates heard from now, and the gates lost since the start with the
 * server time of the last loss (0: none). */
typedef struct {
    int64_t gates, lost, last_lost_us;
} scene_health_gates_t;
void scene_health_set_gates(scene_health_t *self, const scene_health_gates_t *g);
scene_health_gates_t scene_health_gates(scene_health_t *self);

#endif
