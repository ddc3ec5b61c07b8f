/* scene/stats.h - the scene's metrics, registered once and shared by its
 * threads (every update is an atomic). */
#ifndef SCENE_STATS_H
#define SCENE_STATS_H

#include "metrics.h"

typedef struct {
    ts_metric_t *envelopes_in, *bad_envelopes, *replies_out;
    ts_metric_t *exchanges, *invalid, *lost, *unmatched_acks, *deferred_dropped;
    ts_metric_t *online, *players_in_memory, *lag_flags;
    ts_metric_t *rtt;
    ts_metric_t *flushes, *flush_errors, *flush_seconds, *flush_rows, *store_pending;
    ts_metric_t *sqlite_memory;
    /* inproc sends that failed, by the thread they were for: never silent */
    ts_metric_t *send_failed_gate, *send_failed_worker, *send_failed_writer, *send_failed_router;
    ts_metric_t *load_retries, *loads_abandoned;
    ts_metric_t *flagged_lag, *flagged_speed;   /* players in memory flagged, by kind */
    ts_metric_t *gates, *gates_lost;            /* gates heard from; gates gone silent */
    ts_metric_t *store_failing, *store_dropped; /* 1 while rows cannot be written; rows given up on */
} scene_stats_t;

/* Registers every metric in reg. Returns 0, or -1 when out of memory. */
int scene_stats_init(scene_stats_t *stats, ts_metrics_t *reg);

#endif
