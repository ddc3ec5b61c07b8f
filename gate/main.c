/* gate/main.c - ticksync-gate: settings, then the gate's loop. */
#include <czmq.h>
#include <stdio.h>
#include <stdlib.h>

#include "addr.h"
#include "config.h"
#include "gate.h"
#include "httpd.h"
#include "log.h"
#include "metrics.h"
#include "net.h"
#include "signals.h"
#include "token.h"

static const ts_setting_t settings[] = {
    { "listen", TS_SET_STR, "127.0.0.1:7700", "client TCP (and UDP) address, HOST:PORT", 0, 0 },
    { "scenes", TS_SET_STR, "tcp://127.0.0.1:7710", "ZeroMQ endpoints of the scene shards, in shard order, comma-separated", 0, 0 },
    { "metrics", TS_SET_STR, "127.0.0.1:9170", "/metrics and /healthz address, HOST:PORT", 0, 0 },
    { "secret-file", TS_SET_STR, NULL, "the cluster's token secret (none: open mode, any token accepted)", 0, 0 },
    { "check-config", TS_SET_BOOL, "false", "check every setting and exit: 0 when all are good, 2 with the reason", 0, 0 },
    { "allow-open", TS_SET_BOOL, "false", "permit open mode on a non-loopback address", 0, 0 },
    { "sync-rate", TS_SET_INT, "20", "SYNC per second allowed per connection", 1, 1000000 },
    { "sync-interval-ms", TS_SET_INT, "1000", "sync interval advertised in WELCOME", 10, 3600000 },
    { "udp", TS_SET_BOOL, "true", "also take SYNC and SYNC_ACK over UDP on the listen port (--udp=false: off)", 0, 0 },
    { "ws-listen", TS_SET_STR, NULL, "also serve WebSocket clients (browsers) on this address, HOST:PORT (none: off)", 0, 0 },
    { "ws-origins", TS_SET_STR, "*", "the page origins a browser may connect from, comma-separated (\"https://game.example\"), or * for any", 0, 0 },
    { "curve-scene-cert", TS_SET_STR, NULL, "the scenes' CurveZMQ public certificates, one for all or one per shard, comma-separated (none: no encryption)", 0, 0 },
    { "curve-cert", TS_SET_STR, NULL, "this gate's CurveZMQ secret certificate (none: a fresh key pair at each start)", 0, 0 },
    { "batch-us", TS_SET_INT, "500", "microseconds envelopes for a shard may wait to share one ZeroMQ message (0: one per loop turn)", 0, 100000 },
    { "out-cap", TS_SET_INT, "65536", "bytes queued for a client that does not read before it is dropped", 1024, 1 << 26 },
};

/* /healthz: ok while at least one scene shard answers PINGs; "degraded"
 * (still 200: the gate serves, and clocks sync) while a shard that answers
 * cannot write its store, named in shards_degraded. */
static bool gate_healthy(void *arg, json_t *body)
{
    int up = gate_reachable_shards(arg);
    uint64_t mask;
    int degraded = gate_degraded_shards(arg, &mask);
    json_object_set_new(body, "status", json_string(up == 0 ? "no shard" : degraded ? "degraded" : "ok"));
    json_object_set_new(body, "shards_up", json_integer(up));
    json_t *list = json_array();
    for (int i = 0; i < 64; i++)
        if (mask & 1ULL << i)
            json_array_append_new(list, json_integer(i));
    json_object_set_new(body, "shards_degraded", list);
    return up > 0;
}

static gate_options_t options_of(ts_config_t *cfg)
{
    return (gate_options_t) {
        .scenes = ts_config_str(cfg, "scenes"),
        .sync_rate = (double) ts_config_int(cfg, "sync-rate"),
        .sync_interval_ms = (uint64_t) ts_config_int(cfg, "sync-interval-ms"),
        .out_cap = (size_t) ts_config_int(cfg, "out-cap"),
        .batch_us = ts_config_int(cfg, "batch-us"),
        .udp = ts_config_bool(cfg, "udp"),
        .curve_scene_certs = ts_config_str(cfg, "curve-scene-cert"),
        .curve_cert = ts_config_str(cfg, "curve-cert"),
        .ws = ts_config_str(cfg, "ws-listen") != NULL,
        .ws_origins = ts_config_str(cfg, "ws-origins"),
    };
}

/* The addresses parsed into opt, the secret read into *secret (NULL: open
 * mode), and open mode refused beyond loopback unless allowed. */
static ts_config_rc_t check(ts_config_t *cfg, gate_options_t *opt, uint8_t **secret)
{
    char err[TS_ERR_MAX];
    const char *secret_file = ts_config_str(cfg, "secret-file");
    const char *refused = "open mode (no --secret-file) refuses non-loopback address %s without --allow-open";
    bool open_ok = ts_config_bool(cfg, "allow-open");
    if (ts_config_argc(cfg) > 0)
        return ts_config_fail(cfg, "unexpected argument '%s'", ts_config_arg(cfg, 0));
    if (ts_addr_parse(ts_config_str(cfg, "listen"), &opt->listen, &opt->listen_len, err) < 0)
        return ts_config_fail(cfg, "listen: %s", err);
    struct sockaddr_storage metrics;
    socklen_t metrics_len;
    if (ts_addr_parse(ts_config_str(cfg, "metrics"), &metrics, &metrics_len, err) < 0)
        return ts_config_fail(cfg, "metrics: %s", err);
    if (ts_addr_endpoints(opt->scenes, err) < 0)
        return ts_config_fail(cfg, "scenes: %s", err);
    if (opt->ws && ts_addr_parse(ts_config_str(cfg, "ws-listen"), &opt->ws_listen, &opt->ws_listen_len, err) < 0)
        return ts_config_fail(cfg, "ws-listen: %s", err);
    if (secret_file && !(*secret = ts_token_read_secret(secret_file, &opt->secret_len)))
        return ts_config_fail(cfg, "secret-file: cannot read '%s' (or it is empty)", secret_file);
    if (!*secret && opt->ws && !ts_addr_is_loopback(&opt->ws_listen) && !open_ok)
        return ts_config_fail(cfg, refused, ts_config_str(cfg, "ws-listen"));
    if (opt->curve_cert && !opt->curve_scene_certs)
        return ts_config_fail(cfg, "curve-cert: only with curve-scene-cert");
    if (!*secret && !ts_addr_is_loopback(&opt->listen) && !open_ok)
        return ts_config_fail(cfg, refused, ts_config_str(cfg, "listen"));
    opt->secret = *secret;
    return TS_CONFIG_OK;
}

/* The gate and its metrics endpoint, until SIGTERM or SIGINT. Returns the
 * exit status. */
static int run(ts_config_t *cfg, const gate_options_t *opt)
{
    /* SIGTERM/SIGINT arrive through the loop's signalfd; czmq must not take them. */
    ts_signals_block();
    zsys_handler_set(NULL);
    ts_log_t *log = ts_log_new("gate", (ts_log_level_t) ts_log_level_parse(ts_config_str(cfg, "log-level")));
    ts_metrics_t *metrics = ts_metrics_new(TS_METRICS_ONE_WRITER);
    char err[TS_ERR_MAX] = "out of memory";
    gate_t *gate = log && metrics ? gate_new(opt, log, metrics, err) : NULL;
    ts_httpd_options_t ho = { .listen = ts_config_str(cfg, "metrics"), .what = "metrics HTTP", .metrics = metrics,
                              .max_connections = 64, .health = gate_healthy, .arg = gate };
    ts_httpd_t *httpd = gate ? ts_httpd_new(&ho, err) : NULL;
    int status = 1;
    if (httpd) {
        const char *ws_listen = opt->ws ? ts_config_str(cfg, "ws-listen") : "off";
        ts_log(log, TS_LOG_INFO, "listening", "listen=%s ws_listen=%s scenes=%s metrics=%s",
               ts_config_str(cfg, "listen"), ws_listen, opt->scenes, ts_config_str(cfg, "metrics"));
        if (opt->ws && ts_addr_browsers_refuse(ts_addr_port(&opt->ws_listen)))
            ts_log(log, TS_LOG_WARN, "ws_port_refused_by_browsers",
                   "ws_listen=%s note=\"a bad port of the Fetch standard: no page can connect\"", ws_listen);
        status = gate_run(gate);
    } else {
        fprintf(stderr, "ticksync-gate: %s\n", err);
    }
    ts_httpd_destroy(&httpd);
    gate_destroy(&gate);
    ts_metrics_destroy(&metrics);
    ts_log_destroy(&log);
    return status;
}

int main(int argc, char **argv)
{
    ts_config_t *cfg = ts_config_new("ticksync-gate", "[options]",
                                     "The ticksync gate: accepts game clients, stamps their TimeSync messages\n"
                                     "with server time and forwards them to the player's scene shard.",
                                     settings, sizeof settings / sizeof settings[0]);
    if (!cfg)
        return 1;
    uint8_t *secret = NULL;
    gate_options_t opt = { 0 };
    ts_config_rc_t rc = ts_config_load(cfg, argc, argv);
    if (rc == TS_CONFIG_OK) {
        opt = options_of(cfg);
        rc = check(cfg, &opt, &secret);
    }
    int status = rc == TS_CONFIG_EXIT ? 0 : 2;
    if (rc == TS_CONFIG_OK && ts_config_bool(cfg, "check-config"))
        status = 0, printf("ticksync-gate: settings ok\n");
    else if (rc == TS_CONFIG_OK)
        status = run(cfg, &opt);
    free(secret);
    ts_config_destroy(&cfg);
    return status;
}
