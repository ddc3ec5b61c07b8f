/* scene/gates.c - see gates.h. */
#include "gates.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    uint8_t id[SCENE_GATE_ID_MAX];
    size_t  len;
    int64_t last;
} gate_t;

struct scene_gates_t {
    gate_t *gates;
    size_t  n, size, hit;   /* hit: where the last gate seen was found */
    int64_t lost_after_us;
};

scene_gates_t *scene_gates_new(int64_t lost_after_us)
{
    scene_gates_t *self = calloc(1, sizeof *self);
    if (self)
        self->lost_after_us = lost_after_us;
    return self;
}

void scene_gates_destroy(scene_gates_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    free((*self_p)->gates);
    free(*self_p);
    *self_p = NULL;
}

static bool is(const gate_t *g, const uint8_t *id, size_t len)
{
    return g->len == len && memcmp(g->id, id, len) == 0;
}

int scene_gates_seen(scene_gates_t *self, const uint8_t *id, size_t len, int64_t now)
{
    if (len == 0 || len > SCENE_GATE_ID_MAX)
        return -1;
    if (self->hit < self->n && is(&self->gates[self->hit], id, len)) {
        self->gates[self->hit].last = now;
        return 0;
    }
    for (size_t i = 0; i < self->n; i++)
        if (is(&self->gates[i], id, len)) {
            self->gates[i].last = now;
            self->hit = i;
            return 0;
        }
    if (self->n == self->size) {
        size_t size = self->size ? self->size * 2 : 8;
        gate_t *grown = realloc(self->gates, size * sizeof *grown);
        if (!grown)
            return -1;
        self->gates = grown;
        self->size = size;
    }
    gate_t *g = &self->gates[self->n];
    memcpy(g->id, id, len);
    g->len = len;
    g->last = now;
    self->hit = self->n++;
    return 1;
}

size_t scene_gates_next_lost(scene_gates_t *self, int64_t now, uint8_t *id)
{
    for (size_t i = 0; i < self->n; i++) {
        if (now - self->gates[i].last < self->lost_after_us)
            continue;
        size_t len = self->gates[i].len;
        memcpy(id, self->gates[i].id, len);
        self->gates[i] = self->gates[--self->n];   /* order does not matter */
        self->hit = 0;
        return len;
    }
    return 0;
}

size_t scene_gates_count(const scene_gates_t *self)
{
    return self->n;
}
