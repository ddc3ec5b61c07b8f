/* tests/test_gate_stats.c - the gate's metrics: every family registered
 * under its documented name, labelled series for each message type, error
 * code and UDP drop reason, and updates that show in the rendering. */
#include <criterion/criterion.h>
#include <string.h>

#include "stats.h"

Test(gate_stats, registers_every_family_with_its_labels)
{
    ts_metrics_t *reg = ts_metrics_new(TS_METRICS_ONE_WRITER);
    gate_stats_t m;
    cr_assert_eq(gate_stats_init(&m, reg), 0);
    char *text = ts_metrics_render(reg);
    static const char *const families[] = {
        "ticksync_gate_connections_accepted_total", "ticksync_gate_connections ", "ticksync_gate_sessions ",
        "ticksync_gate_sessions_replaced_total", "ticksync_gate_messages_in_total{type=\"SYNC\"}",
        "ticksync_gate_messages_out_total{type=\"SYNC_REPLY\"}", "ticksync_gate_errors_total{code=\"BAD_FRAME\"}",
        "ticksync_gate_errors_total{code=\"TOO_LARGE\"}", "ticksync_gate_replies_conn_gone_total",
        "ticksync_gate_results_late_total", "ticksync_gate_bad_envelopes_total", "ticksync_gate_envelopes_unsent_total",
        "ticksync_gate_stalled_readers_total", "ticksync_gate_inflight_full_total",
        "ticksync_gate_inside_seconds_bucket{le=\"0.00025\"}", "ticksync_gate_udp_datagrams_total",
        "ticksync_gate_udp_dropped_total{reason=", "ticksync_gate_results_awaited", "ticksync_gate_ready_connections",
        "ticksync_gate_closing_connections",
    };
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
        cr_assert(strstr(text, families[i]), "missing %s in\n%s", families[i], text);
    free(text);
    ts_metrics_destroy(&reg);
}

Test(gate_stats, updates_show_in_the_rendering)
{
    ts_metrics_t *reg = ts_metrics_new(TS_METRICS_ONE_WRITER);
    gate_stats_t m;
    cr_assert_eq(gate_stats_init(&m, reg), 0);
    ts_metric_add(m.in[TS_SYNC], 3);
    ts_metric_add(m.errors[TS_RATE_LIMITED], 2);
    ts_metric_set(m.connections, 5);
    ts_metric_observe(m.inside, 40e-6);
    char *text = ts_metrics_render(reg);
    cr_assert(strstr(text, "ticksync_gate_messages_in_total{type=\"SYNC\"} 3\n"), "%s", text);
    cr_assert(strstr(text, "ticksync_gate_errors_total{code=\"RATE_LIMITED\"} 2\n"), "%s", text);
    cr_assert(strstr(text, "ticksync_gate_connections 5\n"), "%s", text);
    cr_assert(strstr(text, "ticksync_gate_inside_seconds_bucket{le=\"5e-05\"} 1\n"), "%s", text);
    cr_assert(strstr(text, "ticksync_gate_inside_seconds_bucket{le=\"2.5e-05\"} 0\n"), "%s", text);
    free(text);
    ts_metrics_destroy(&reg);
}
