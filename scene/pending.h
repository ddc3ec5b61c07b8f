/* scene/pending.h - the rows the store thread holds for its next flush: the
 * latest row of each player, in one array that is kept and reused from
 * flush to flush (no allocation per row), found by player_id through an
 * open-addressing index. */
#ifndef SCENE_PENDING_H
#define SCENE_PENDING_H

#include <stddef.h>
#include <stdint.h>

#include "row.h"

typedef struct scene_pending_t scene_pending_t;

scene_pending_t *scene_pending_new(void);
void scene_pending_destroy(scene_pending_t **self_p);

/* Keeps row as its player's latest, over any earlier one. Returns 0, or -1
 * when out of memory: the row is not kept. */
int scene_pending_put(scene_pending_t *self, const scene_row_t *row);

/* The player's pending row, or NULL. Valid until the next put or clear. */
const scene_row_t *scene_pending_get(scene_pending_t *self, uint64_t player_id);

size_t scene_pending_size(const scene_pending_t *self);

/* The pending rows (scene_pending_size of them) in player_id order: the
 * order a flush writes in, so each b-tree page is visited once. Valid until
 * the next put or clear; the rows stay pending. */
const scene_row_t *scene_pending_sorted(scene_pending_t *self);

/* Forgets every row; the memory is kept for the next flush. */
void scene_pending_clear(scene_pending_t *self);

#endif
