/* scene/pending.c - see pending.h. The index is linear probing over a
 * power-of-two table of (player_id, row position + 1) slots (0: empty), at
 * most half full: a probe reads the slot alone, not the row it names. Rows
 * are never removed one by one, only all at once, so probing needs no
 * tombstones. The sort orders (player_id, position) keys by radix, then
 * moves each row once into a second array. */
#include "pending.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "shard.h"

/* A player and a row's position: in the index the position + 1 (0: an
 * empty slot), in the sort's keys the position itself. */
typedef struct {
    uint64_t player_id;
    uint32_t pos;
} entry_t;

struct scene_pending_t {
    scene_row_t *rows, *spare;   /* spare: where the sort moves the rows to */
    entry_t     *keys, *keys_tmp;
    size_t       n, rows_size;
    entry_t     *slots;
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
    free((*self_p)->spare);
    free((*self_p)->keys);
    free((*self_p)->keys_tmp);
    free((*self_p)->slots);
    free(*self_p);
    *self_p = NULL;
}

/* The slot that holds player_id's position, or the empty slot where it would go. */
static size_t slot_of(const scene_pending_t *self, uint64_t player_id)
{
    size_t i = (size_t) ts_shard_mix(player_id) & self->mask;
    while (self->slots[i].pos && self->slots[i].player_id != player_id)
        i = (i + 1) & self->mask;
    return i;
}

/* Indexes every row again into a table of the given size. */
static int reindex(scene_pending_t *self, size_t nslots)
{
    if (nslots != self->mask + 1) {
        entry_t *slots = calloc(nslots, sizeof *slots);
        if (!slots)
            return -1;
        free(self->slots);
        self->slots = slots;
        self->mask = nslots - 1;
    } else {
        memset(self->slots, 0, nslots * sizeof *self->slots);
    }
    for (size_t r = 0; r < self->n; r++)
        self->slots[slot_of(self, self->rows[r].player_id)] = (entry_t) { self->rows[r].player_id, (uint32_t) r + 1 };
    self->stale = false;
    return 0;
}

/* After a sort the positions in the index are wrong; the same size cannot fail. */
static void fresh(scene_pending_t *self)
{
    if (self->stale)
        reindex(self, self->mask + 1);
}

/* Makes room for size rows in the rows, the sort's second array and its
 * keys. Each array is kept when it grows, so a failure part way leaves all
 * of them at least rows_size long. */
static int grow(scene_pending_t *self, size_t size)
{
    scene_row_t *rows = realloc(self->rows, size * sizeof *rows);
    if (rows)
        self->rows = rows;
    scene_row_t *spare = realloc(self->spare, size * sizeof *spare);
    if (spare)
        self->spare = spare;
    entry_t *keys = realloc(self->keys, size * sizeof *keys);
    if (keys)
        self->keys = keys;
    entry_t *tmp = realloc(self->keys_tmp, size * sizeof *tmp);
    if (tmp)
        self->keys_tmp = tmp;
    if (!rows || !spare || !keys || !tmp)
        return -1;
    self->rows_size = size;
    return 0;
}

int scene_pending_put(scene_pending_t *self, const scene_row_t *row)
{
    fresh(self);
    size_t i = slot_of(self, row->player_id);
    if (self->slots[i].pos) {
        self->rows[self->slots[i].pos - 1] = *row;
        return 0;
    }
    if (self->n == UINT32_MAX - 1)
        return -1;
    if (self->n == self->rows_size) {
        size_t size = self->rows_size ? self->rows_size * 2 : 256;
        if (grow(self, size) < 0)
            return -1;
    }
    if (2 * (self->n + 1) > self->mask + 1) {   /* keep the table at most half full */
        if (reindex(self, 2 * (self->mask + 1)) < 0)
            return -1;
        i = slot_of(self, row->player_id);
    }
    self->rows[self->n] = *row;
    self->slots[i] = (entry_t) { row->player_id, (uint32_t) ++self->n };
    return 0;
}

const scene_row_t *scene_pending_get(scene_pending_t *self, uint64_t player_id)
{
    fresh(self);
    size_t i = slot_of(self, player_id);
    return self->slots[i].pos ? &self->rows[self->slots[i].pos - 1] : NULL;
}

size_t scene_pending_size(const scene_pending_t *self)
{
    return self->n;
}

/* Sorts n keys by player_id, least significant byte first, one pass per
 * byte in which the ids differ (three for ids under 2^24); tmp holds n. */
static void radix_sort(entry_t *keys, entry_t *tmp, size_t n)
{
    uint64_t all = n ? keys[0].player_id : 0, any = 0;   /* bits set in every id, in some */
    for (size_t i = 0; i < n; i++) {
        all &= keys[i].player_id;
        any |= keys[i].player_id;
    }
    uint64_t varies = any ^ all;
    for (int shift = 0; shift < 64; shift += 8) {
        if (!((varies >> shift) & 0xff))
            continue;
        size_t count[257] = { 0 };
        for (size_t i = 0; i < n; i++)
            count[((keys[i].player_id >> shift) & 0xff) + 1]++;
        for (int b = 0; b < 256; b++)
            count[b + 1] += count[b];
        for (size_t i = 0; i < n; i++)
            tmp[count[(keys[i].player_id >> shift) & 0xff]++] = keys[i];
        memcpy(keys, tmp, n * sizeof *keys);
    }
}

const scene_row_t *scene_pending_sorted(scene_pending_t *self)
{
    size_t n = self->n;
    for (size_t i = 0; i < n; i++)
        self->keys[i] = (entry_t) { self->rows[i].player_id, (uint32_t) i };
    radix_sort(self->keys, self->keys_tmp, n);
    for (size_t i = 0; i < n; i++)
        self->spare[i] = self->rows[self->keys[i].pos];
    scene_row_t *sorted = self->spare;
    self->spare = self->rows;
    self->rows = sorted;
    self->stale = n > 1;   /* indexed again only if a put or get comes before the clear */
    return self->rows;
}

void scene_pending_clear(scene_pending_t *self)
{
    if (self->n)
        memset(self->slots, 0, (self->mask + 1) * sizeof *self->slots);
    self->n = 0;
    self->stale = false;
}
