/* scene/stats.c - see stats.h. */
#include "stats.h"

#include <stddef.h>

int scene_stats_init(scene_stats_t *s, ts_metrics_t *r)
{
    static const double rtt_bounds[] = { 0.5e-3, 1e-3, 2.5e-3, 5e-3, 10e-3, 25e-3, 50e-3, 100e-3, 250e-3, 500e-3, 1 };
    static const double sec_bounds[] = { 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1 };
    static const double row_bounds[] = { 1, 10, 100, 1000, 10000, 100000 };
    s->envelopes_in = ts_metrics_counter(r, "ticksync_scene_envelopes_in_total", "envelopes received from gates", NULL);
    s->bad_envelopes = ts_metrics_counter(r, "ticksync_scene_bad_envelopes_total", "undecodable messages from gates", NULL);
    s->replies_out = ts_metrics_counter(r, "ticksync_scene_replies_out_total", "envelopes sent back to gates", NULL);
    s->exchanges = ts_metrics_counter(r, "ticksync_scene_exchanges_total", "SYNC_ACKs matched to a pending exchange", NULL);
    s->invalid = ts_metrics_counter(r, "ticksync_scene_invalid_total", "exchanges with an invalid sample", NULL);
    s->lost = ts_metrics_counter(r, "ticksync_scene_lost_total", "exchanges with no SYNC_ACK within 5 s", NULL);
    s->unmatched_acks = ts_metrics_counter(r, "ticksync_scene_unmatched_acks_total", "SYNC_ACKs matching no pending exchange", NULL);
    s->deferred_dropped = ts_metrics_counter(r, "ticksync_scene_deferred_dropped_total", "SYNC_ACKs dropped while a player's row was loading", NULL);
    s->online = ts_metrics_gauge(r, "ticksync_scene_players_online", "players with a session on a gate", NULL);
    s->players_in_memory = ts_metrics_gauge(r, "ticksync_scene_players_in_memory", "players held by workers", NULL);
    s->lag_flags = ts_metrics_counter(r, "ticksync_scene_lag_flags_total", "times a player's lag-switch flag was raised", NULL);
    s->rtt = ts_metrics_histogram(r, "ticksync_scene_rtt_seconds", "server-measured round trip of valid exchanges",
                                     NULL, rtt_bounds, sizeof rtt_bounds / sizeof rtt_bounds[0]);
    s->flushes = ts_metrics_counter(r, "ticksync_scene_store_flushes_total", "store transactions committed", NULL);
    s->flush_errors = ts_metrics_counter(r, "ticksync_scene_store_errors_total", "store transactions that failed", NULL);
    s->flush_seconds = ts_metrics_histogram(r, "ticksync_scene_store_flush_seconds", "duration of a store flush",
                                            NULL, sec_bounds, sizeof sec_bounds / sizeof sec_bounds[0]);
    s->flush_rows = ts_metrics_histogram(r, "ticksync_scene_store_flush_rows", "rows written per flush",
                                         NULL, row_bounds, sizeof row_bounds / sizeof row_bounds[0]);
    s->store_pending = ts_metrics_gauge(r, "ticksync_scene_store_pending_rows", "rows waiting for the next flush", NULL);
    s->sqlite_memory = ts_metrics_gauge(r, "ticksync_scene_sqlite_memory_bytes", "heap held by SQLite (page caches included), after the last flush", NULL);
    static const char sends[] = "ticksync_scene_sends_failed_total", sends_help[] =
        "messages a scene thread could not hand to another (counted and logged, never silently lost)";
    s->send_failed_gate = ts_metrics_counter(r, sends, sends_help, "to=\"gate\"");
    s->send_failed_worker = ts_metrics_counter(r, sends, sends_help, "to=\"worker\"");
    s->send_failed_writer = ts_metrics_counter(r, sends, sends_help, "to=\"writer\"");
    s->send_failed_router = ts_metrics_counter(r, sends, sends_help, "to=\"router\"");
    s->load_retries = ts_metrics_counter(r, "ticksync_scene_load_retries_total",
                                         "stored rows asked for again after no answer came in time", NULL);
    s->loads_abandoned = ts_metrics_counter(r, "ticksync_scene_loads_abandoned_total",
                                            "players started afresh after their stored row never came", NULL);
    static const char flagged[] = "ticksync_scene_players_flagged", flagged_help[] =
        "players in memory whose lag or speed flag is raised";
    s->flagged_lag = ts_metrics_gauge(r, flagged, flagged_help, "kind=\"lag\"");
    s->flagged_speed = ts_metrics_gauge(r, flagged, flagged_help, "kind=\"speed\"");
    s->gates = ts_metrics_gauge(r, "ticksync_scene_gates", "gates heard from in the last 2 s", NULL);
    s->gates_lost = ts_metrics_counter(r, "ticksync_scene_gates_lost_total",
                                       "gates silent for 2 s, whose players were marked offline", NULL);
    s->store_failing = ts_metrics_gauge(r, "ticksync_scene_store_failing",
                                        "1 while the last store transaction failed (rows are kept and retried)", NULL);
    s->store_dropped = ts_metrics_counter(r, "ticksync_scene_store_dropped_rows_total",
                                          "latency and history rows never written: past the memory bound, or at a stop "
                                          "with the store failing", NULL);
    ts_metric_t **all = (ts_metric_t **) s;
    for (size_t i = 0; i < sizeof *s / sizeof(ts_metric_t *); i++)
        if (!all[i])
            return -1;
    return 0;
}
