/* tools/delayq.c - see delayq.h. */
#include "delayq.h"

#include <stdlib.h>
#include <string.h>

struct delayq_t {
    delayq_item_t *items;
    size_t         len, size;
    uint64_t       order;
};

delayq_t *delayq_new(void)
{
    return calloc(1, sizeof(delayq_t));
}

void delayq_destroy(delayq_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    free((*self_p)->items);
    free(*self_p);
    *self_p = NULL;
}

static bool before(const delayq_item_t *a, const delayq_item_t *b)
{
    return a->due < b->due || (a->due == b->due && a->order < b->order);
}

static void swap(delayq_item_t *a, delayq_item_t *b)
{
    delayq_item_t t = *a;
    *a = *b;
    *b = t;
}

int delayq_push(delayq_t *self, int64_t due, uint32_t player, uint8_t kind, int64_t injected,
                const uint8_t *bytes, size_t len)
{
    if (len > DELAYQ_BYTES)
        return -1;
    if (self->len == self->size) {
        size_t size = self->size ? self->size * 2 : 1024;
        delayq_item_t *grown = realloc(self->items, size * sizeof *grown);
        if (!grown)
            return -1;
        self->items = grown;
        self->size = size;
    }
    delayq_item_t *it = &self->items[self->len];
    it->due = due;
    it->order = self->order++;
    it->player = player;
    it->kind = kind;
    it->injected = injected;
    it->len = (uint16_t) len;
    memcpy(it->bytes, bytes, len);
    for (size_t i = self->len++; i > 0 && before(&self->items[i], &self->items[(i - 1) / 2]); i = (i - 1) / 2)
        swap(&self->items[i], &self->items[(i - 1) / 2]);
    return 0;
}

bool delayq_pop_due(delayq_t *self, int64_t now, delayq_item_t *out)
{
    if (self->len == 0 || self->items[0].due > now)
        return false;
    *out = self->items[0];
    self->items[0] = self->items[--self->len];
    for (size_t i = 0;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < self->len && before(&self->items[l], &self->items[m]))
            m = l;
        if (r < self->len && before(&self->items[r], &self->items[m]))
            m = r;
        if (m == i)
            break;
        swap(&self->items[i], &self->items[m]);
        i = m;
    }
    return true;
}

int64_t delayq_next(const delayq_t *self)
{
    return self->len ? self->items[0].due : INT64_MAX;
}

size_t delayq_len(const delayq_t *self)
{
    return self->len;
}
