/* scene/export_main.c - ticksync-export: settings, then a shard's history
 * into ClickHouse every --interval-ms, retrying with backoff while
 * ClickHouse cannot take it (export.h). It runs beside its scene (the same
 * host or pod: it reads the scene's file), as a process of its own so the
 * scene's hot path and its crash bound never wait on ClickHouse. */
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "addr.h"
#include "clock.h"
#include "config.h"
#include "err.h"
#include "export.h"
#include "httpd.h"
#include "log.h"
#include "metrics.h"
#include "signals.h"

static const ts_setting_t settings[] = {
    { "check-config", TS_SET_BOOL, "false", "check every setting and exit: 0 when all are good, 2 with the reason", 0, 0 },
    { "db", TS_SET_STR, "./data/scene.db", "the scene's SQLite database (read only)", 0, 0 },
    { "shard", TS_SET_INT, "0", "this scene's shard number, its place in the gates' --scenes", 0, 65535 },
    { "clickhouse", TS_SET_STR, "http://127.0.0.1:8123", "ClickHouse's HTTP interface, http://HOST:PORT", 0, 0 },
    { "clickhouse-db", TS_SET_STR, "ticksync", "ClickHouse database of the table player_latency_history (made if missing)", 0, 0 },
    { "history-step-s", TS_SET_INT, "60", "the scene's --history-step-s", 1, 86400 },
    { "settle-ms", TS_SET_INT, "5000", "a step's rows are sent this long after it ends (more than the scene's --flush-ms)", 1, 3600000 },
    { "interval-ms", TS_SET_INT, "1000", "how often the final rows are sent", 10, 600000 },
    { "batch-rows", TS_SET_INT, "50000", "rows an INSERT", 1, 1000000 },
    { "once", TS_SET_BOOL, "false", "one pass, then exit: 0 when every final row was sent, 1 with the reason (a backfill, a cron job)", 0, 0 },
    { "metrics", TS_SET_STR, "127.0.0.1:9172", "/metrics and /healthz address, HOST:PORT", 0, 0 },
};

#define BACKOFF_MIN_MS 500
#define BACKOFF_MAX_MS 30000

typedef struct {
    ts_metric_t *rows, *batches_failed, *lag, *up;
    _Atomic int  clickhouse_up;        /* the last pass went through */
    char         last_error[TS_ERR_MAX];   /* written by the loop, read by /healthz: a torn read is one odd line */
} export_state_t;

/* /healthz: 200 while the process runs; the body says whether ClickHouse
 * takes rows, so a probe restarts nothing while ClickHouse is away. */
static bool healthy(void *arg, json_t *body)
{
    export_state_t *s = arg;
    bool up = atomic_load(&s->clickhouse_up);
    json_object_set_new(body, "clickhouse", json_string(up ? "up" : "down"));
    if (!up && s->last_error[0])
        json_object_set_new(body, "reason", json_string(s->last_error));
    return true;
}

/* --once: every final row now, and the figures on stdout. */
static int run_once(scene_export_t *ex, const scene_export_options_t *opt)
{
    char err[TS_ERR_MAX];
    int64_t t0 = ts_clock_mono_us();
    long sent = scene_export_pass(ex, ts_clock_real_us(), err);
    double took = (double) (ts_clock_mono_us() - t0) / 1e6;
    if (sent < 0) {
        fprintf(stderr, "ticksync-export: %s\n", err);
        return 1;
    }
    printf("shard %d: %ld rows sent in %.3f s (%.0f rows/s), position %lld\n", opt->shard, sent, took,
           took > 0 ? (double) sent / took : 0.0, (long long) scene_export_position(ex));
    return 0;
}

static int run(ts_config_t *cfg)
{
    ts_signals_block();
    ts_log_t *log = ts_log_new("export", (ts_log_level_t) ts_log_level_parse(ts_config_str(cfg, "log-level")));
    ts_metrics_t *metrics = ts_metrics_new(TS_METRICS_ANY_WRITER);
    export_state_t s = { 0 };
    char err[TS_ERR_MAX] = "out of memory";
    scene_export_options_t opt = {
        .db = ts_config_str(cfg, "db"),
        .shard = (int) ts_config_int(cfg, "shard"),
        .clickhouse = ts_config_str(cfg, "clickhouse"),
        .database = ts_config_str(cfg, "clickhouse-db"),
        .step_us = ts_config_int(cfg, "history-step-s") * 1000000,
        .settle_us = ts_config_int(cfg, "settle-ms") * 1000,
        .batch_rows = (int) ts_config_int(cfg, "batch-rows"),
        .timeout_ms = 30000,
    };
    scene_export_t *ex = log && metrics ? scene_export_new(&opt, err) : NULL;
    if (ex && ts_config_bool(cfg, "once")) {
        int status = run_once(ex, &opt);
        scene_export_destroy(&ex);
        ts_metrics_destroy(&metrics);
        ts_log_destroy(&log);
        return status;
    }
    if (ex) {
        s.rows = ts_metrics_counter(metrics, "ticksync_export_rows_total", "history rows sent to ClickHouse", NULL);
        s.batches_failed = ts_metrics_counter(metrics, "ticksync_export_failures_total",
                                              "passes that failed (ClickHouse or the shard's file could not be reached)", NULL);
        s.lag = ts_metrics_gauge(metrics, "ticksync_export_lag_seconds",
                                 "server time minus the step the next row will be in", NULL);
        s.up = ts_metrics_gauge(metrics, "ticksync_export_clickhouse_up", "1 while the last pass went through", NULL);
    }
    ts_httpd_options_t ho = { .listen = ts_config_str(cfg, "metrics"), .what = "metrics HTTP", .metrics = metrics,
                              .max_connections = 16, .health = healthy, .arg = &s };
    ts_httpd_t *httpd = ex && s.rows && s.batches_failed && s.lag && s.up ? ts_httpd_new(&ho, err) : NULL;
    int sig = httpd ? ts_signals_fd() : -1;
    if (sig < 0) {
        fprintf(stderr, "ticksync-export: %s\n", err);
        ts_httpd_destroy(&httpd);
        scene_export_destroy(&ex);
        ts_metrics_destroy(&metrics);
        ts_log_destroy(&log);
        return 1;
    }
    ts_log(log, TS_LOG_INFO, "start", "db=%s shard=%d clickhouse=%s", opt.db, opt.shard, opt.clickhouse);
    int wait_ms = 0, backoff_ms = BACKOFF_MIN_MS;
    bool was_up = true;
    for (;;) {
        struct pollfd p = { .fd = sig, .events = POLLIN };
        if (poll(&p, 1, wait_ms) > 0)
            break;
        int64_t now = ts_clock_real_us();
        long sent = scene_export_pass(ex, now, err);
        if (sent >= 0) {
            ts_metric_add(s.rows, (uint64_t) sent);
            ts_metric_set(s.lag, (now - scene_export_position(ex)) / 1000000);
            if (!was_up)
                ts_log(log, TS_LOG_INFO, "export_resumed", "position_us=%lld", (long long) scene_export_position(ex));
            was_up = true;
            wait_ms = (int) ts_config_int(cfg, "interval-ms");
            backoff_ms = BACKOFF_MIN_MS;
        } else {
            ts_metric_add(s.batches_failed, 1);
            snprintf(s.last_error, sizeof s.last_error, "%s", err);
            if (was_up)   /* once a failure, not once a retry */
                ts_log(log, TS_LOG_WARN, "export_failed", "reason=\"%s\" retry=backoff", err);
            was_up = false;
            wait_ms = backoff_ms;
            backoff_ms = backoff_ms * 2 < BACKOFF_MAX_MS ? backoff_ms * 2 : BACKOFF_MAX_MS;
        }
        atomic_store(&s.clickhouse_up, was_up);
        ts_metric_set(s.up, was_up);
    }
    ts_log(log, TS_LOG_INFO, "stop", "position_us=%lld", (long long) scene_export_position(ex));
    close(sig);
    ts_httpd_destroy(&httpd);
    scene_export_destroy(&ex);
    ts_metrics_destroy(&metrics);
    ts_log_destroy(&log);
    return 0;
}

int main(int argc, char **argv)
{
    ts_config_t *cfg = ts_config_new("ticksync-export", "[options]",
                                     "Ships a scene shard's latency history to ClickHouse, for fleet-wide\n"
                                     "questions over weeks (ticksync-admin fleet).",
                                     settings, sizeof settings / sizeof settings[0]);
    if (!cfg)
        return 1;
    char err[TS_ERR_MAX];
    struct sockaddr_storage metrics;
    socklen_t len;
    ts_config_rc_t rc = ts_config_load(cfg, argc, argv);
    if (rc == TS_CONFIG_OK && ts_config_argc(cfg) > 0)
        rc = ts_config_fail(cfg, "unexpected argument '%s'", ts_config_arg(cfg, 0));
    if (rc == TS_CONFIG_OK && ts_addr_parse(ts_config_str(cfg, "metrics"), &metrics, &len, err) < 0)
        rc = ts_config_fail(cfg, "metrics: %s", err);
    if (rc == TS_CONFIG_OK && strncmp(ts_config_str(cfg, "clickhouse"), "http://", 7) != 0)
        rc = ts_config_fail(cfg, "clickhouse: '%s' is not an http://HOST:PORT URL", ts_config_str(cfg, "clickhouse"));
    if (rc == TS_CONFIG_OK && strspn(ts_config_str(cfg, "clickhouse-db"),
                                     "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
                                  != strlen(ts_config_str(cfg, "clickhouse-db")))
        rc = ts_config_fail(cfg, "clickhouse-db: '%s' is not a plain name (letters, digits, _)",
                            ts_config_str(cfg, "clickhouse-db"));
    int status = rc == TS_CONFIG_EXIT ? 0 : 2;
    if (rc == TS_CONFIG_OK && ts_config_bool(cfg, "check-config"))
        status = 0, printf("ticksync-export: settings ok\n");
    else if (rc == TS_CONFIG_OK)
        status = run(cfg);
    ts_config_destroy(&cfg);
    return status;
}
