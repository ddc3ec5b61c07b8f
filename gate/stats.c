/* gate/stats.c - see stats.h. */
#include "stats.h"

#include <stdbool.h>
#include <stdio.h>


static const char *udp_reason(int v) { return gate_udp_verdict_name((gate_udp_verdict_t) v); }
static const char *ws_reason(int f) { return gate_ws_fault_name((gate_ws_fault_t) f); }

/* A counter per reason 1 .. n-1 (0 is "ok"), labelled reason="...". */
static bool by_reason(ts_metrics_t *reg, const char *name, const char *help, int n, const char *(*reason)(int),
                      ts_metric_t **out)
{
    bool ok = true;
    for (int r = 1; r < n; r++) {
        char l[48];
        snprintf(l, sizeof l, "reason=\"%s\"", reason(r));
        out[r] = ts_metrics_counter(reg, name, help, l);
        ok = ok && out[r];
    }
    return ok;
}

int gate_stats_init(gate_stats_t *m, ts_metrics_t *reg)
{
    bool ok = true;
    m->accepted = ts_metrics_counter(reg, "ticksync_gate_connections_accepted_total", "TCP connections accepted", NULL);
    m->connections = ts_metrics_gauge(reg, "ticksync_gate_connections", "open TCP connections", NULL);
    m->sessions = ts_metrics_gauge(reg, "ticksync_gate_sessions", "welcomed sessions", NULL);
    m->replaced = ts_metrics_counter(reg, "ticksync_gate_sessions_replaced_total", "sessions replaced by a second HELLO", NULL);
    static const int types[] = { TS_HELLO, TS_WELCOME, TS_SYNC, TS_SYNC_REPLY, TS_SYNC_ACK, TS_SYNC_RESULT, TS_ERROR, TS_BYE };
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        char l[64];
        snprintf(l, sizeof l, "type=\"%s\"", ts_msg_type_name((uint64_t) types[i]));
        m->in[types[i]] = ts_metrics_counter(reg, "ticksync_gate_messages_in_total", "client messages decoded, by type", l);
        m->out[types[i]] = ts_metrics_counter(reg, "ticksync_gate_messages_out_total", "messages sent to clients, by type", l);
        ok = ok && m->in[types[i]] && m->out[types[i]];
    }
    for (int c = 1; c <= 8; c++) {
        char l[64];
        snprintf(l, sizeof l, "code=\"%s\"", ts_error_name((uint64_t) c));
        m->errors[c] = ts_metrics_counter(reg, "ticksync_gate_errors_total", "ERRORs sent to clients, by PROTOCOL code", l);
        ok = ok && m->errors[c];
    }
    m->gone = ts_metrics_counter(reg, "ticksync_gate_replies_conn_gone_total", "scene replies for connections that have gone", NULL);
    m->late = ts_metrics_counter(reg, "ticksync_gate_results_late_total", "SYNC_RESULTs after their SYNC_ACK was answered UNAVAILABLE", NULL);
    m->bad_envelopes = ts_metrics_counter(reg, "ticksync_gate_bad_envelopes_total", "undecodable messages from scenes", NULL);
    m->unsent = ts_metrics_counter(reg, "ticksync_gate_envelopes_unsent_total", "envelopes dropped because a shard would not take them (no connection, or its queue full); OPEN and CLOSE are queued again while the shard is up", NULL);
    m->stalled = ts_metrics_counter(reg, "ticksync_gate_stalled_readers_total", "connections dropped for passing the output cap", NULL);
    m->inflight_full = ts_metrics_counter(reg, "ticksync_gate_inflight_full_total", "SYNCs answered untracked because every exchange slot was in flight", NULL);
    m->unmeasured = ts_metrics_counter(reg, "ticksync_gate_sync_unmeasured_total", "SYNCs answered whose exchange the shard could not be told of (down, or not taking): the clock synced, the delay not measured", NULL);
    static const double bounds[] = { 25e-6, 50e-6, 100e-6, 250e-6, 500e-6, 1e-3, 2.5e-3, 5e-3, 10e-3, 50e-3 };
    m->inside = ts_metrics_histogram(reg, "ticksync_gate_inside_seconds", "time inside the server, t3 - t2",
                                     NULL, bounds, sizeof bounds / sizeof bounds[0]);
    m->udp_in = ts_metrics_counter(reg, "ticksync_gate_udp_datagrams_total", "UDP datagrams admitted", NULL);
    m->awaiting_depth = ts_metrics_gauge(reg, "ticksync_gate_results_awaited", "SYNC_ACKs forwarded to shards whose SYNC_RESULT is due", NULL);
    m->ready_depth = ts_metrics_gauge(reg, "ticksync_gate_ready_connections", "connections with input waiting for their next share of the loop", NULL);
    m->shards_up = ts_metrics_gauge(reg, "ticksync_gate_shards_up", "scene shards answering PINGs", NULL);
    m->shards_degraded = ts_metrics_gauge(reg, "ticksync_gate_shards_degraded", "shards answering PINGs whose PONG says their store is failing", NULL);
    m->closing_depth = ts_metrics_gauge(reg, "ticksync_gate_closing_connections", "connections lingering after their last words", NULL);
    ok = ok && by_reason(reg, "ticksync_gate_udp_dropped_total", "UDP datagrams dropped silently, by reason",
                         GATE_UDP_VERDICTS, udp_reason, m->udp_dropped);
    m->ws_accepted = ts_metrics_counter(reg, "ticksync_gate_ws_connections_accepted_total",
                                        "WebSocket connections accepted (on --ws-listen)", NULL);
    m->ws_upgraded = ts_metrics_counter(reg, "ticksync_gate_ws_handshakes_total",
                                        "WebSocket handshakes answered 101", NULL);
    ok = ok && by_reason(reg, "ticksync_gate_ws_refused_total",
                         "WebSocket handshakes refused and connections closed for the client's fault, by reason",
                         GATE_WS_FAULTS, ws_reason, m->ws_faults);
    ts_metric_t *const single[] = { m->accepted, m->connections, m->sessions, m->replaced, m->gone, m->late,
                                    m->bad_envelopes, m->stalled, m->inflight_full, m->unsent, m->unmeasured, m->inside,
                                    m->udp_in, m->awaiting_depth, m->ready_depth, m->closing_depth,
                                    m->ws_accepted, m->ws_upgraded, m->shards_up, m->shards_degraded };
    for (size_t i = 0; i < sizeof single / sizeof single[0]; i++)
        ok = ok && single[i];
    return ok ? 0 : -1;
}
