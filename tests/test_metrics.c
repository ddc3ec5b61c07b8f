/* tests/test_metrics.c - the Prometheus text exposition: HELP and TYPE
 * once a family, labels, cumulative histogram buckets with +Inf, _sum and
 * _count, updates from several threads at once, and a one-writer
 * registry's updates read while they are made. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"

static void renders(ts_metrics_writers_t writers)
{
    ts_metrics_t *r = ts_metrics_new(writers);
    ts_metric_t *a = ts_metrics_counter(r, "t_errors_total", "errors", "code=\"BAD_FRAME\"");
    ts_metric_t *b = ts_metrics_counter(r, "t_errors_total", "errors", "code=\"TOO_LARGE\"");
    ts_metric_t *g = ts_metrics_gauge(r, "t_online", "players", NULL);
    static const double bounds[] = { 0.001, 0.01 };
    ts_metric_t *h = ts_metrics_histogram(r, "t_rtt_seconds", "rtt", NULL, bounds, 2);
    ts_metric_add(a, 3);
    ts_metric_add(b, 1);
    ts_metric_set(g, -2);
    ts_metric_observe(h, 0.0005);
    ts_metric_observe(h, 0.005);
    ts_metric_observe(h, 5);
    cr_assert_eq(ts_metric_value(a), 3);
    cr_assert_eq(ts_metric_value(h), 3);
    char *text = ts_metrics_render(r);
    cr_assert_not_null(text);
    const char *want =
        "# HELP t_errors_total errors\n# TYPE t_errors_total counter\n"
        "t_errors_total{code=\"BAD_FRAME\"} 3\nt_errors_total{code=\"TOO_LARGE\"} 1\n"
        "# HELP t_online players\n# TYPE t_online gauge\nt_online -2\n"
        "# HELP t_rtt_seconds rtt\n# TYPE t_rtt_seconds histogram\n"
        "t_rtt_seconds_bucket{le=\"0.001\"} 1\nt_rtt_seconds_bucket{le=\"0.01\"} 2\n"
        "t_rtt_seconds_bucket{le=\"+Inf\"} 3\nt_rtt_seconds_sum 5.0055\nt_rtt_seconds_count 3\n";
    cr_assert_str_eq(text, want);
    free(text);
    ts_metrics_destroy(&r);
    cr_assert_null(r);
}

Test(metrics, renders_counters_gauges_and_histograms)
{
    renders(TS_METRICS_ANY_WRITER);
    renders(TS_METRICS_ONE_WRITER);
}

static ts_metric_t *shared_counter, *shared_hist;

static void *hammer(void *arg)
{
    (void) arg;
    for (int i = 0; i < 100000; i++) {
        ts_metric_add(shared_counter, 1);
        ts_metric_observe(shared_hist, 1.0);
    }
    return NULL;
}

Test(metrics, updates_from_many_threads_add_up)
{
    ts_metrics_t *r = ts_metrics_new(TS_METRICS_ANY_WRITER);
    static const double bounds[] = { 0.5 };
    shared_counter = ts_metrics_counter(r, "t_total", "n", NULL);
    shared_hist = ts_metrics_histogram(r, "t_h", "h", NULL, bounds, 1);
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, hammer, NULL);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    cr_assert_eq(ts_metric_value(shared_counter), 400000);
    char *text = ts_metrics_render(r);
    cr_assert(strstr(text, "t_h_sum 400000\n"), "%s", text);
    free(text);
    ts_metrics_destroy(&r);
}

/* Renders the registry over and over while its one writer counts; returns
 * a message when a render failed or the counter read back went down. */
static void *render_while_written(void *arg)
{
    uint64_t last = 0;
    for (int i = 0; i < 200; i++) {
        char *text = ts_metrics_render(arg);
        const char *at = text ? strstr(text, "t_one_total ") : NULL;
        uint64_t seen = at ? strtoull(at + strlen("t_one_total "), NULL, 10) : 0;
        free(text);
        if (!at)
            return "no t_one_total in the render";
        if (seen < last)
            return "the counter read back went down";
        last = seen;
    }
    return NULL;
}

Test(metrics, one_writer_updates_add_up_and_read_while_made)
{
    ts_metrics_t *r = ts_metrics_new(TS_METRICS_ONE_WRITER);
    static const double bounds[] = { 0.5 };
    ts_metric_t *c = ts_metrics_counter(r, "t_one_total", "n", NULL);
    ts_metric_t *h = ts_metrics_histogram(r, "t_one_h", "h", NULL, bounds, 1);
    pthread_t reader;
    pthread_create(&reader, NULL, render_while_written, r);
    for (int i = 0; i < 300000; i++) {
        ts_metric_add(c, 1);
        ts_metric_observe(h, i % 2 ? 1.0 : 0.25);
    }
    void *failed;
    pthread_join(reader, &failed);
    cr_assert_null(failed, "%s", (const char *) failed);
    cr_assert_eq(ts_metric_value(c), 300000);
    cr_assert_eq(ts_metric_value(h), 300000);
    char *text = ts_metrics_render(r);
    cr_assert(strstr(text, "t_one_h_bucket{le=\"0.5\"} 150000\n"), "%s", text);
    cr_assert(strstr(text, "t_one_h_sum 187500\n"), "%s", text);
    free(text);
    ts_metrics_destroy(&r);
}
