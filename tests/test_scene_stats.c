/* tests/test_scene_stats.c - the scene's metrics: every family registered
 * under its documented name, and updates from several threads that add up. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <string.h>

#include "stats.h"

Test(scene_stats, registers_every_family)
{
    ts_metrics_t *reg = ts_metrics_new(TS_METRICS_ANY_WRITER);
    scene_stats_t s;
    cr_assert_eq(scene_stats_init(&s, reg), 0);
    char *text = ts_metrics_render(reg);
    static const char *const families[] = {
        "ticksync_scene_envelopes_in_total", "ticksync_scene_bad_envelopes_total", "ticksync_scene_replies_out_total",
        "ticksync_scene_exchanges_total", "ticksync_scene_invalid_total", "ticksync_scene_lost_total",
        "ticksync_scene_unmatched_acks_total", "ticksync_scene_deferred_dropped_total", "ticksync_scene_players_online",
        "ticksync_scene_players_in_memory", "ticksync_scene_lag_flags_total", "ticksync_scene_rtt_seconds_bucket",
        "ticksync_scene_store_flushes_total", "ticksync_scene_store_errors_total", "ticksync_scene_store_flush_seconds",
        "ticksync_scene_store_flush_rows", "ticksync_scene_store_pending_rows", "ticksync_scene_sqlite_memory_bytes",
        "ticksync_scene_sends_failed_total{to=\"gate\"}", "ticksync_scene_sends_failed_total{to=\"worker\"}",
        "ticksync_scene_sends_failed_total{to=\"writer\"}", "ticksync_scene_sends_failed_total{to=\"router\"}",
        "ticksync_scene_load_retries_total", "ticksync_scene_loads_abandoned_total", "ticksync_scene_gates",
        "ticksync_scene_gates_lost_total", "ticksync_scene_store_failing", "ticksync_scene_store_dropped_rows_total",
    };
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
        cr_assert(strstr(text, families[i]), "missing %s in\n%s", families[i], text);
    free(text);
    ts_metrics_destroy(&reg);
}

static void *count_exchanges(void *arg)
{
    scene_stats_t *s = arg;
    for (int i = 0; i < 100000; i++)
        ts_metric_add(s->exchanges, 1);
    return NULL;
}

Test(scene_stats, workers_updating_at_once_lose_no_count)
{
    ts_metrics_t *reg = ts_metrics_new(TS_METRICS_ANY_WRITER);
    scene_stats_t s;
    cr_assert_eq(scene_stats_init(&s, reg), 0);
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, count_exchanges, &s);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    cr_assert_eq(ts_metric_value(s.exchanges), 400000);
    ts_metrics_destroy(&reg);
}
