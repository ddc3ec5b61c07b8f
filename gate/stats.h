/* gate/stats.h - the gate's metrics, registered once. The gate's loop is
 * their only writer (the registry is TS_METRICS_ONE_WRITER); the HTTP
 * thread only renders them. */
#ifndef GATE_STATS_H
#define GATE_STATS_H

#include "metrics.h"
#include "msg.h"
#include "udp.h"
#include "ws.h"

typedef struct {
    ts_metric_t *accepted, *connections, *sessions, *replaced;
    ts_metric_t *in[128], *out[128];              /* client messages, by type */
    ts_metric_t *errors[TS_TOO_LARGE + 1];        /* ERRORs sent, by code */
    ts_metric_t *gone, *late, *bad_envelopes, *stalled, *inflight_full, *unsent, *unmeasured;
    ts_metric_t *inside;                          /* t3 - t2 */
    ts_metric_t *udp_in, *udp_dropped[GATE_UDP_VERDICTS];
    ts_metric_t *ws_accepted, *ws_upgraded, *ws_faults[GATE_WS_FAULTS];
    ts_metric_t *awaiting_depth, *ready_depth, *closing_depth;
    ts_metric_t *shards_up, *shards_degraded;
} gate_stats_t;

/* Registers every metric in reg. Returns 0, or -1 when out of memory. */
int gate_stats_init(gate_stats_t *stats, ts_metrics_t *reg);

#endif
