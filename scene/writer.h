/* scene/writer.h - the store thread: the one owner of the SQLite store.
 * Workers send it dirty rows, coalesced by player until the next flush
 * (one transaction every flush_ms), and row loads, which it answers from
 * the unflushed rows first, then from SQLite. A failed flush is logged,
 * shown in health (NULL: not shown) and retried; the rows stay queued (the
 * history bounded in memory). Stopping flushes everything first, retrying
 * a failing store for 5 s before it gives up on what is left. */
#ifndef SCENE_WRITER_H
#define SCENE_WRITER_H

#include "health.h"
#include "log.h"
#include "stats.h"
#include "store.h"

typedef struct scene_writer_t scene_writer_t;

/* Takes ownership of store. workers is how many worker inboxes to answer;
 * history rows older than history_keep_us are deleted (0: kept). Returns
 * NULL when the thread cannot start. */
scene_writer_t *scene_writer_new(scene_store_t *store, int workers, int flush_ms, int64_t history_keep_us,
                                 ts_log_t *log, scene_stats_t *stats, scene_health_t *health);
/* Flushes what is queued and stops the thread; returns the rows it could
 * not write (0: all written). The store stays open until destroy. */
int64_t scene_writer_stop(scene_writer_t *self);
/* Flushes what is queued (after the inbox is drained), stops the thread and
 * closes the store. */
void scene_writer_destroy(scene_writer_t **self_p);

#endif
