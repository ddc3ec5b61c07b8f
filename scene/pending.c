/* scene/pending.c - see pending.h. The index is linear probing over a
 * power-of-two table of row positions (+1; 0 is an empty slot), at most half
 * full. Rows are never removed one by one, only all at once, so probing
 * needs no tombstones. */
#include "pending.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "shard.h"

struct scene_pending_t {
    scene_row_t *rows;
    size_t       n, rows_size;
    uint32_t    *slots;
    size_t       mask;        /* slots - 1; the table is a power of two */
    bool         stale;       /* sorted since indexed: the next put or get indexes again */
};

#define FIRST_SLOTS 1024

scene_pending_t *scene_pending_new(void)
{
    scene_pending_t *self = calloc(1, sizeof *self);
    if (!self)
        return NULL;
    self->slots = calloc(FIRST_SLOTS, sizeof *self->slots);
    if (!self->slots) {
        free(self);
        return NULL;
    }
    self->mask = FIRST_SLOTS - 1;
    return self;
}

void scene_pending_destroy(scene_pending_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    free((*self_p)->rows);
    free((*self_p)->slots);
    free(*self_p);
    *self_p = NULL;
}

/* The slot that holds player_id's position, or the empty slot where it would go. */
static size_t slot_of(const scene_pending_t *self, uint64_t player_id)
{
    size_t i = (size_t) ts_shard_mix(player_id) & self->mask;
    while (self->slots[i] && self->rows[self->slots[i] - 1].player_id != player_id)
        i = (i + 1) & self->mask;
    return i;
}

/* Indexes every row again into a table of the given size. */
static int reindex(scene_pending_t *self, size_t nslots)
{
    if (nslots != self->mask + 1) {
        uint32_t *slots = calloc(nslots, sizeof *slots);
        if (!slots)
            return -1;
        free(self->slots);
        self->slots = slots;
        self->mask = nslots - 1;
    } else {
        memset(self->slots, 0, nslots * sizeof *self->slots);
    }
    for (size_t r = 0; r < self->n; r++)
        self->slots[slot_of(self, self->rows[r].player_id)] = (uint32_t) r + 1;
    self->stale = false;
    return 0;
}

/* After a sort the positions in the index are wrong; the same size cannot fail. */
static void fresh(scene_pending_t *self)
{
    if (self->stale)
        reindex(self, self->mask + 1);
}

int scene_pending_put(scene_pending_t *self, const scene_row_t *row)
{
    fresh(self);
    size_t i = slot_of(self, row->player_id);
    if (self->slots[i]) {
        self->rows[self->slots[i] - 1] = *row;
        return 0;
    }
    if (self->n == UINT32_MAX - 1)
        return -1;
    if (self->n == self->rows_size) {
        size_t size = self->rows_size ? self->rows_size * 2 : 256;
        scene_row_t *grown = realloc(self->rows, size * sizeof *grown);
        if (!grown)
            return -1;
        self->rows = grown;
        self->rows_size = size;
    }
    if (2 * (self->n + 1) > self->mask + 1) {   /* keep the table at most half full */
        if (reindex(self, 2 * (self->mask + 1)) < 0)
            return -1;
        i = slot_of(self, row->player_id);
    }
    self->rows[self->n] = *row;
    self->slots[i] = (uint32_t) ++self->n;
    return 0;
}

const scene_row_t *scene_pending_get(scene_pending_t *self, uint64_t player_id)
{
    fresh(self);
    size_t i = slot_of(self, player_id);
    return self->slots[i] ? &self->rows[self->slots[i] - 1] : NULL;
}

size_t scene_pending_size(const scene_pending_t *self)
{
    return self->n;
}

static int by_player(const void *a, const void *b)
{
    uint64_t x = ((const scene_row_t *) a)->player_id, y = ((const scene_row_t *) b)->player_id;
    return (x > y) - (x < y);
}

const scene_row_t *scene_pending_sorted(scene_pending_t *self)
{
    qsort(self->rows, self->n, sizeof *self->rows, by_player);
    self->stale = self->n > 1;   /* indexed again only if a put or get comes before the clear */
    return self->rows;
}

void scene_pending_clear(scene_pending_t *self)
{
    if (self->n)
        memset(self->slots, 0, (self->mask + 1) * sizeof *self->slots);
    self->n = 0;
    self->stale = false;
}
