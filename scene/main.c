/* scene/main.c - ticksync-scene: settings, then the shard's routing loop. */
#include <czmq.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "addr.h"
#include "config.h"
#include "curve.h"
#include "err.h"
#include "log.h"
#include "metrics.h"
#include "scene.h"
#include "signals.h"
#include "token.h"

static const ts_setting_t settings[] = {
    { "check-config", TS_SET_BOOL, "false", "check every setting and exit: 0 when all are good, 2 with the reason", 0, 0 },
    { "bind", TS_SET_STR, "tcp://127.0.0.1:7710", "ZeroMQ endpoint the gates connect to", 0, 0 },
    { "db", TS_SET_STR, "./data/scene.db", "SQLite database", 0, 0 },
    { "admin", TS_SET_STR, "127.0.0.1:9171", "admin HTTP API, /metrics, /healthz, HOST:PORT", 0, 0 },
    { "admin-token-file", TS_SET_STR, NULL, "file holding the admin API's bearer token (none: no token asked)", 0, 0 },
    { "workers", TS_SET_INT, "0", "player worker threads (0: number of cores)", 0, 256 },
    { "flush-ms", TS_SET_INT, "100", "store flush interval, milliseconds", 1, 60000 },
    { "idle-s", TS_SET_INT, "60", "a player silent this long leaves memory (its row stays)", 1, 86400 },
    { "history-step-s", TS_SET_INT, "60", "seconds each row of a player's latency history covers", 1, 86400 },
    { "wal-mb", TS_SET_INT, "16", "the most the SQLite write-ahead log holds before it is written into the database and cut back", 1, 4096 },
    { "history-hours", TS_SET_INT, "24", "hours of latency history kept (older rows are deleted in small batches)", 1, 87600 },
    { "speed-bound-ppm", TS_SET_INT, "10000", "a client clock faster or slower than this (ppm) raises its speed flag: a speed hack, not a cheap crystal", 1, 1000000 },
    { "speed-span-s", TS_SET_INT, "30", "seconds of SYNCs before a client's clock rate is known", 1, 3600 },
    { "lag-bound-ms", TS_SET_INT, "50", "client and server rtt further apart than this are a lag-switch strike", 1, 60000 },
    { "lag-strikes", TS_SET_INT, "5", "consecutive strikes that raise a player's lag flag", 1, 1000 },
    { "curve-cert", TS_SET_STR, NULL, "this scene's CurveZMQ secret certificate (ticksync-admin keygen); set: gates must use CURVE", 0, 0 },
    { "curve-gates", TS_SET_STR, NULL, "folder of the public certificates of the gates let in (none: any gate that has the scene's public key)", 0, 0 },
};

/* admin-token-file's secret into *token (NULL: no token asked for). */
static ts_config_rc_t read_token(ts_config_t *cfg, char **token)
{
    size_t len = 0;
    const char *file = ts_config_str(cfg, "admin-token-file");
    *token = file ? (char *) ts_token_read_secret(file, &len) : NULL;
    if (file && (!*token || strlen(*token) != len)) {
        free(*token);
        *token = NULL;
        return ts_config_fail(cfg, "admin-token-file: cannot read '%s' (or it is empty or binary)", file);
    }
    return TS_CONFIG_OK;
}

/* curve-cert loads, and curve-gates is a folder that comes with it. */
/* --bind and --admin parse (names are not resolved). */
static ts_config_rc_t check_addresses(ts_config_t *cfg)
{
    char err[TS_ERR_MAX];
    struct sockaddr_storage admin;
    socklen_t len;
    int endpoints = ts_addr_endpoints(ts_config_str(cfg, "bind"), err);
    if (endpoints < 0)
        return ts_config_fail(cfg, "bind: %s", err);
    if (endpoints != 1)
        return ts_config_fail(cfg, "bind: one endpoint, not %d", endpoints);
    if (ts_addr_parse(ts_config_str(cfg, "admin"), &admin, &len, err) < 0)
        return ts_config_fail(cfg, "admin: %s", err);
    return TS_CONFIG_OK;
}

static ts_config_rc_t check_curve(ts_config_t *cfg)
{
    const char *cert_file = ts_config_str(cfg, "curve-cert"), *gates = ts_config_str(cfg, "curve-gates");
    struct stat folder;
    char why[TS_ERR_MAX];
    zcert_t *cert = cert_file ? ts_curve_load(cert_file, true, why) : NULL;
    bool cert_ok = cert != NULL;
    zcert_destroy(&cert);
    if (cert_file && !cert_ok)
        return ts_config_fail(cfg, "curve-cert: %s", why);
    if (gates && !cert_file)
        return ts_config_fail(cfg, "curve-gates: only with curve-cert");
    if (gates && (stat(gates, &folder) < 0 || !S_ISDIR(folder.st_mode)))
        return ts_config_fail(cfg, "curve-gates: '%s' is not a folder", gates);
    return TS_CONFIG_OK;
}

static scene_options_t options_of(ts_config_t *cfg, const char *token)
{
    long workers = ts_config_int(cfg, "workers");
    if (workers == 0)
        workers = sysconf(_SC_NPROCESSORS_ONLN) > 0 ? sysconf(_SC_NPROCESSORS_ONLN) : 1;
    return (scene_options_t) {
        .bind = ts_config_str(cfg, "bind"),
        .db = ts_config_str(cfg, "db"),
        .admin = ts_config_str(cfg, "admin"),
        .admin_token = token,
        .workers = (int) workers,
        .flush_ms = (int) ts_config_int(cfg, "flush-ms"),
        .idle_us = ts_config_int(cfg, "idle-s") * 1000000,
        .lag = { .lag_bound_us = ts_config_int(cfg, "lag-bound-ms") * 1000,
                 .lag_strikes = ts_config_int(cfg, "lag-strikes") },
        .history_step_us = ts_config_int(cfg, "history-step-s") * 1000000,
        .history_keep_us = ts_config_int(cfg, "history-hours") * 3600000000LL,
        .wal_bytes = ts_config_int(cfg, "wal-mb") << 20,
        .speed = { .bound_ppm = ts_config_int(cfg, "speed-bound-ppm"),
                   .span_us = ts_config_int(cfg, "speed-span-s") * 1000000 },
        .curve_cert = ts_config_str(cfg, "curve-cert"),
        .curve_gates = ts_config_str(cfg, "curve-gates"),
    };
}

/* The shard, until SIGTERM or SIGINT. Returns the exit status. */
static int run(const scene_options_t *opt, const char *log_level)
{
    /* SIGTERM/SIGINT arrive through the routing loop's signalfd; czmq must not take them. */
    ts_signals_block();
    zsys_handler_set(NULL);
    ts_log_t *log = ts_log_new("scene", (ts_log_level_t) ts_log_level_parse(log_level));
    ts_metrics_t *metrics = ts_metrics_new(TS_METRICS_ANY_WRITER);
    char err[TS_ERR_MAX] = "out of memory";
    scene_t *scene = log && metrics ? scene_new(opt, log, metrics, err) : NULL;
    int status = 1;
    if (scene) {
        status = scene_run(scene);
        scene_destroy(&scene);
        if (status)
            ts_log(log, TS_LOG_ERROR, "stop", "status=%d reason=rows_lost", status);
        else
            ts_log(log, TS_LOG_INFO, "stop", NULL);
    } else {
        fprintf(stderr, "ticksync-scene: %s\n", err);
    }
    ts_metrics_destroy(&metrics);
    ts_log_destroy(&log);
    return status;
}

int main(int argc, char **argv)
{
    ts_config_t *cfg = ts_config_new("ticksync-scene", "[options]",
                                     "A ticksync scene shard: per-player workers compute and smooth each\n"
                                     "player's round trip (RFC 6298) and keep it in SQLite.",
                                     settings, sizeof settings / sizeof settings[0]);
    if (!cfg)
        return 1;
    char *token = NULL;
    ts_config_rc_t rc = ts_config_load(cfg, argc, argv);
    if (rc == TS_CONFIG_OK && ts_config_argc(cfg) > 0)
        rc = ts_config_fail(cfg, "unexpected argument '%s'", ts_config_arg(cfg, 0));
    if (rc == TS_CONFIG_OK)
        rc = read_token(cfg, &token);
    if (rc == TS_CONFIG_OK)
        rc = check_addresses(cfg);
    if (rc == TS_CONFIG_OK)
        rc = check_curve(cfg);
    int status = rc == TS_CONFIG_EXIT ? 0 : 2;
    if (rc == TS_CONFIG_OK && ts_config_bool(cfg, "check-config")) {
        status = 0;
        printf("ticksync-scene: settings ok\n");
    } else if (rc == TS_CONFIG_OK) {
        scene_options_t opt = options_of(cfg, token);
        status = run(&opt, ts_config_str(cfg, "log-level"));
    }
    free(token);
    ts_config_destroy(&cfg);
    return status;
}
