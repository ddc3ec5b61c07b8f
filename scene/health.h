/* scene/health.h - what the scene says about itself beyond "it routes":
 * whether its store is failing, and why. The store thread sets it after
 * each flush; the admin thread reads it for /healthz and the routing
 * thread for each PONG (so the gates can show the shard degraded).
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

#endif
