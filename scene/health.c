/* scene/health.c - see health.h. */
#include "health.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "err.h"

struct scene_health_t {
    atomic_bool     failing;
    pthread_mutex_t lock;     /* guards reason and rows */
    char            reason[TS_ERR_MAX];
    int64_t         rows;
    scene_health_gates_t gates;   /* guarded by lock too */
};

scene_health_t *scene_health_new(void)
{
    scene_health_t *self = calloc(1, sizeof *self);
    if (!self)
        return NULL;
    atomic_init(&self->failing, false);
    pthread_mutex_init(&self->lock, NULL);
    return self;
}

void scene_health_destroy(scene_health_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    pthread_mutex_destroy(&(*self_p)->lock);
    free(*self_p);
    *self_p = NULL;
}

void scene_health_store_failed(scene_health_t *self, const char *reason, int64_t rows)
{
    pthread_mutex_lock(&self->lock);
    snprintf(self->reason, sizeof self->reason, "%s", reason);
    self->rows = rows;
    pthread_mutex_unlock(&self->lock);
    atomic_store(&self->failing, true);
}

void scene_health_store_ok(scene_health_t *self)
{
    atomic_store(&self->failing, false);
}

bool scene_health_store_failing(const scene_health_t *self)
{
    return atomic_load(&((scene_health_t *) self)->failing);
}

bool scene_health_store_why(scene_health_t *self, char *reason, size_t cap, int64_t *rows)
{
    bool failing = scene_health_store_failing(self);
    pthread_mutex_lock(&self->lock);
    snprintf(reason, cap, "%s", failing ? self->reason : "");
    *rows = failing ? self->rows : 0;
    pthread_mutex_unlock(&self->lock);
    return failing;
}

void scene_health_set_gates(scene_health_t *self, const scene_health_gates_t *g)
{
    pthread_mutex_lock(&self->lock);
    self->gates = *g;
    pthread_mutex_unlock(&self->lock);
}

scene_health_gates_t scene_health_gates(scene_health_t *self)
{
    pthread_mutex_lock(&self->lock);
    scene_health_gates_t g = self->gates;
    pthread_mutex_unlock(&self->lock);
    return g;
}
