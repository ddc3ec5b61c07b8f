/* tools/admin.c - ticksync-admin: operators' view of player latency.
 *
 *   ticksync-admin [--admin URL,...] [--json] latency PLAYER
 *   ticksync-admin [--admin URL,...] [--json] top [--worst|--best] [-n N]
 *   ticksync-admin [--admin URL,...] [--json] stats
 *   ticksync-admin --admin URL backup --out FILE   (one shard's database, copied while it serves)
 *   ticksync-admin keygen PATH      (CurveZMQ certificate: PATH public, PATH_secret)
 *   ticksync-admin --clickhouse URL [--json] fleet [--since 7d] [-n N]   (the fleet's history, fleet.h)
 *   ticksync-admin --admin URL,... reshard [--journal DIR] [--wait-s S]   (players moved to their shard, reshard.h)
 *
 * --admin lists the shards' admin URLs in shard order, as the gate's
 * --scenes lists their endpoints: one player is asked of its own shard
 * (the gate's jump hash), lists and stats fan out and are merged. */
#include <czmq.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "addr.h"
#include "config.h"
#include "dashboard.h"
#include "fleet.h"
#include "reshard.h"
#include "http.h"
#include "shard.h"
#include "span.h"
#include "signals.h"
#include "token.h"

#define SHARDS_MAX 256

static const ts_setting_t settings[] = {
    { "admin", TS_SET_STR, "http://127.0.0.1:9171", "the shards' admin APIs, in shard order, comma-separated", 0, 0 },
    { "json", TS_SET_BOOL, "false", "print JSON instead of a table", 0, 0 },
    { "token-file", TS_SET_STR, NULL, "file holding the admin API's bearer token", 0, 0 },
    { "timeout-ms", TS_SET_INT, "2000", "per-request deadline", 1, 600000 },
    { "worst", TS_SET_BOOL, "false", "top: highest delay first (the default)", 0, 0 },
    { "best", TS_SET_BOOL, "false", "top: lowest delay first", 0, 0 },
    { "n", TS_SET_INT, "10", "top: how many players (also -n N)", 1, 1000 },
    { "from", TS_SET_STR, NULL, "history: from this server time (µs since the epoch)", 0, 0 },
    { "to", TS_SET_STR, NULL, "history: to this server time (µs; default: now)", 0, 0 },
    { "listen", TS_SET_STR, "127.0.0.1:9180", "dashboard: the page's address, HOST:PORT", 0, 0 },
    { "out", TS_SET_STR, NULL, "backup: the file to write the shard's database to", 0, 0 },
    { "clickhouse", TS_SET_STR, NULL, "fleet, dashboard: ClickHouse's HTTP interface, where ticksync-export ships the history (fleet: http://127.0.0.1:8123 when unset; the dashboard shows the fleet only when set)", 0, 0 },
    { "clickhouse-db", TS_SET_STR, "ticksync", "fleet: the ClickHouse database ticksync-export writes", 0, 0 },
    { "since", TS_SET_STR, "7d", "fleet: the span, back from now, as 90s, 30m, 2h or 7d", 0, 0 },
    { "journal", TS_SET_STR, "./reshard-journal", "reshard: the folder for batches of players in flight", 0, 0 },
    { "wait-s", TS_SET_INT, "180", "reshard: how long to wait for players still active on their old shard", 0, 86400 },
    { "last", TS_SET_STR, "1h", "history: the last span, as 90s, 30m, 2h or 1d (when --from is not given)", 0, 0 },
};

typedef struct {
    char       *urls[SHARDS_MAX];
    int         count;
    const char *token;
    int         timeout_ms;
    bool        json;
} cli_t;

/* GETs path from shard k and parses the JSON answer. Returns the value, or
 * NULL after printing why on stderr. *status gets the HTTP status. */
static json_t *fetch(const cli_t *cli, int k, const char *path, int *status)
{
    ts_http_answer_t a;
    char err[TS_ERR_MAX];
    if (ts_http_get(cli->urls[k], path, cli->token, cli->timeout_ms, &a, err) < 0) {
        fprintf(stderr, "ticksync-admin: shard %d (%s) unreachable: %s\n", k, cli->urls[k], err);
        return NULL;
    }
    *status = a.status;
    json_error_t jerr;
    json_t *v = json_loadb(a.body, a.len, 0, &jerr);
    if (!v)
        fprintf(stderr, "ticksync-admin: shard %d (%s) answered %d without JSON: %s\n", k, cli->urls[k], a.status,
                jerr.text);
    ts_http_free(&a);
    return v;
}

static json_int_t num(const json_t *o, const char *key)
{
    return json_integer_value(json_object_get(o, key));
}

static const char *yes(const json_t *o, const char *key)
{
    return json_is_true(json_object_get(o, key)) ? "yes" : "no";
}

static double ms(json_int_t us)
{
    return (double) us / 1000.0;
}

static int print_json(json_t *v)
{
    char *s = json_dumps(v, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    if (s)
        puts(s);
    free(s);
    return s ? 0 : 1;
}

/* The player id a command names, or 0 after saying what cmd needs. */
static unsigned long long player_arg(const char *cmd, const char *text)
{
    char *end;
    unsigned long long id = text ? strtoull(text, &end, 10) : 0;
    if (!text || *end || id == 0 || text[0] == '-') {
        fprintf(stderr, "ticksync-admin: %s needs a player id, a positive integer\n", cmd);
        return 0;
    }
    return id;
}

/* GET path from player id's own shard (*k). Returns the 200 answer for the
 * caller's table; otherwise NULL with *rc: the --json output's (printed
 * here, the shard added), 3 for a player the shard does not know, 1 for
 * any other failure. */
static json_t *player_fetch(const cli_t *cli, unsigned long long id, const char *path, int *k, int *rc)
{
    *k = (int) ts_shard_of(id, (uint32_t) cli->count);
    int status = 0;
    json_t *p = fetch(cli, *k, path, &status);
    *rc = 1;
    if (!p)
        return NULL;
    if (status == 200 && !cli->json)
        return p;
    if (status == 404) {
        fprintf(stderr, "ticksync-admin: player %llu is unknown to shard %d\n", id, *k);
        *rc = 3;
    } else if (status != 200) {
        fprintf(stderr, "ticksync-admin: shard %d answered %d: %s\n", *k, status,
                json_string_value(json_object_get(p, "error")) ?: "?");
    } else {
        json_object_set_new(p, "shard", json_integer(*k));
        *rc = print_json(p);
    }
    json_decref(p);
    return NULL;
}

static int cmd_latency(const cli_t *cli, const char *id_text)
{
    unsigned long long id = player_arg("latency", id_text);
    if (!id)
        return 2;
    char path[64];
    snprintf(path, sizeof path, "/v1/players/%llu", id);
    int k, rc;
    json_t *p = player_fetch(cli, id, path, &k, &rc);
    if (!p)
        return rc;
    time_t t = (time_t) (num(p, "updated_at_us") / 1000000);
    char when[32] = "never", rate[48] = "not known yet";
    if (t > 0)
        strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
    if (json_is_integer(json_object_get(p, "clock_rate_ppm")))
        snprintf(rate, sizeof rate, "%+lld ppm", (long long) num(p, "clock_rate_ppm"));
    printf("player      %llu\n"
           "shard       %d (%s)\n"
           "online      %s\n"
           "delay       %.3f ms (srtt/2)\n"
           "srtt        %.3f ms   rttvar %.3f ms   last %.3f ms   min %.3f ms\n"
           "samples     %lld   invalid %lld   lost %lld\n"
           "client      rtt %.3f ms   offset %.3f ms\n"
           "lag flag    %s (%lld strikes)\n"
           "clock rate  %s   speed flag %s\n"
           "updated     %s\n",
           id, k, cli->urls[k], yes(p, "online"), ms(num(p, "delay_us")), ms(num(p, "srtt_us")),
           ms(num(p, "rttvar_us")), ms(num(p, "rtt_us")), ms(num(p, "min_rtt_us")), (long long) num(p, "samples"),
           (long long) num(p, "invalid"), (long long) num(p, "lost"), ms(num(p, "client_rtt_us")),
           ms(num(p, "client_offset_us")), yes(p, "lag_flag"), (long long) num(p, "lag_strikes"), rate,
           yes(p, "speed_flag"), when);
    json_decref(p);
    return 0;
}

/* ticksync-admin dashboard: serves the page until SIGINT or SIGTERM. */
static int cmd_dashboard(const cli_t *cli, const char *listen, const char *clickhouse, const char *clickhouse_db)
{
    ts_signals_block();
    int sig = ts_signals_fd();
    char err[TS_ERR_MAX];
    tools_dashboard_options_t o = { .listen = listen, .urls = cli->urls, .count = cli->count, .token = cli->token,
                                    .timeout_ms = cli->timeout_ms, .clickhouse = clickhouse,
                                    .clickhouse_db = clickhouse_db };
    tools_dashboard_t *d = sig >= 0 ? tools_dashboard_new(&o, err) : NULL;
    if (!d) {
        fprintf(stderr, "ticksync-admin: %s\n", sig < 0 ? "cannot watch signals" : err);
        return 1;
    }
    fprintf(stderr, "ticksync-admin: dashboard on http://%s/ over %d shard%s (Ctrl-C stops)\n", listen, cli->count,
            cli->count == 1 ? "" : "s");
    struct sockaddr_storage at;
    socklen_t at_len;
    if (ts_addr_parse(listen, &at, &at_len, err) == 0 && ts_addr_browsers_refuse(ts_addr_port(&at)))
        fprintf(stderr, "ticksync-admin: warning: browsers refuse port %u (a bad port of the Fetch standard): "
                        "pick another for the page to open\n",
                (unsigned) ts_addr_port(&at));
    struct pollfd p = { .fd = sig, .events = POLLIN };
    while (poll(&p, 1, -1) < 0 && errno == EINTR)
        ;
    tools_dashboard_destroy(&d);
    close(sig);
    return 0;
}

static bool parse_time(const char *s, int64_t *out)
{
    char *end;
    long long v = s ? strtoll(s, &end, 10) : 0;
    *out = v;
    return s && *s && !*end;
}

/* ticksync-admin history PLAYER: one line a step, and the p50 as a sparkline. */
static int cmd_history(const cli_t *cli, const char *id_text, const char *from_text, const char *to_text,
                       const char *last)
{
    unsigned long long id = player_arg("history", id_text);
    int64_t to = ts_clock_real_us(), from, span = tools_span_us(last);
    if (!id)
        return 2;
    if ((to_text && !parse_time(to_text, &to)) || (from_text && !parse_time(from_text, &from)) || (!from_text && !span)) {
        fprintf(stderr, "ticksync-admin: history: --from and --to are µs since the epoch, --last a span like 30m\n");
        return 2;
    }
    if (!from_text)
        from = to - span;
    char path[160];
    snprintf(path, sizeof path, "/v1/players/%llu/history?from=%lld&to=%lld", id, (long long) from, (long long) to);
    int k, rc;
    json_t *h = player_fetch(cli, id, path, &k, &rc);
    if (!h)
        return rc;
    json_t *points = json_object_get(h, "points");
    printf("player %llu, shard %d, steps of %lld s: %zu\n", id, k, (long long) num(h, "step_s"),
           json_array_size(points));
    printf("%-20s %9s %6s %9s %9s %9s %9s\n", "STEP (UTC)", "EXCHANGES", "LOST", "MIN_MS", "P50_MS", "MAX_MS",
           "JITTER_MS");
    json_int_t lo = 0, hi = 0;
    for (size_t i = 0; i < json_array_size(points); i++) {
        json_t *pt = json_array_get(points, i);
        time_t t = (time_t) (num(pt, "t_us") / 1000000);
        char when[32];
        strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", gmtime(&t));
        printf("%-20s %9lld %6lld %9.3f %9.3f %9.3f %9.3f\n", when, (long long) num(pt, "exchanges"),
               (long long) num(pt, "lost"), ms(num(pt, "rtt_min_us")), ms(num(pt, "rtt_p50_us")),
               ms(num(pt, "rtt_max_us")), ms(num(pt, "jitter_us")));
        json_int_t p50 = num(pt, "rtt_p50_us");
        lo = i == 0 || p50 < lo ? p50 : lo;
        hi = i == 0 || p50 > hi ? p50 : hi;
    }
    static const char *const bars[] = { "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█" };
    printf("p50 %9.3f ms ", ms(lo));
    for (size_t i = 0; i < json_array_size(points); i++) {
        json_int_t p50 = num(json_array_get(points, i), "rtt_p50_us");
        fputs(bars[hi > lo ? (int) ((p50 - lo) * 7 / (hi - lo)) : 0], stdout);
    }
    printf(" %.3f ms\n", ms(hi));
    json_decref(h);
    return 0;
}

/* The shards' own order: srtt (highest first when *worst), then player id. */
static int by_srtt(const void *a, const void *b, void *worst)
{
    const json_t *p = *(json_t *const *) a, *q = *(json_t *const *) b;
    json_int_t x = num(p, "srtt_us"), y = num(q, "srtt_us");
    int c = (x > y) - (x < y);
    if (*(const bool *) worst)
        c = -c;
    if (c == 0)
        c = (num(p, "player_id") > num(q, "player_id")) - (num(p, "player_id") < num(q, "player_id"));
    return c;
}

static int cmd_top(const cli_t *cli, bool worst, int n)
{
    char path[64];
    snprintf(path, sizeof path, "/v1/players?order=%s&limit=%d", worst ? "worst" : "best", n);
    json_t *all = json_array();
    for (int k = 0; k < cli->count; k++) {
        int status = 0;
        json_t *v = fetch(cli, k, path, &status);
        json_t *list = v ? json_object_get(v, "players") : NULL;
        if (!v || status != 200 || !json_is_array(list)) {
            if (v)
                fprintf(stderr, "ticksync-admin: shard %d answered %d\n", k, status);
            json_decref(v);
            json_decref(all);
            return 1;
        }
        size_t i;
        json_t *p;
        json_array_foreach(list, i, p) {
            json_object_set_new(p, "shard", json_integer(k));
            json_array_append(all, p);
        }
        json_decref(v);
    }
    size_t count = json_array_size(all);
    json_t **rows = calloc(count + 1, sizeof *rows);
    for (size_t i = 0; rows && i < count; i++)
        rows[i] = json_array_get(all, i);
    if (rows)
        qsort_r(rows, count, sizeof *rows, by_srtt, &worst);
    if (count > (size_t) n)
        count = (size_t) n;
    int rc = 0;
    if (cli->json) {
        json_t *top = json_array();
        for (size_t i = 0; rows && i < count; i++)
            json_array_append(top, rows[i]);
        json_t *out = json_pack("{s:o}", "players", top);
        rc = print_json(out);
        json_decref(out);
    } else {
        printf("%-20s %5s %6s %10s %10s %10s %10s %8s %7s %6s %4s\n", "PLAYER", "SHARD", "ONLINE", "DELAY_MS",
               "SRTT_MS", "RTTVAR_MS", "MIN_MS", "SAMPLES", "INVALID", "LOST", "LAG");
        for (size_t i = 0; rows && i < count; i++) {
            json_t *p = rows[i];
            printf("%-20lld %5lld %6s %10.3f %10.3f %10.3f %10.3f %8lld %7lld %6lld %4s\n",
                   (long long) num(p, "player_id"), (long long) num(p, "shard"), yes(p, "online"),
                   ms(num(p, "delay_us")), ms(num(p, "srtt_us")), ms(num(p, "rttvar_us")), ms(num(p, "min_rtt_us")),
                   (long long) num(p, "samples"), (long long) num(p, "invalid"), (long long) num(p, "lost"),
                   yes(p, "lag_flag"));
        }
    }
    free(rows);
    json_decref(all);
    return rc;
}

static const char *const stat_keys[] = { "players_online", "players_known", "players_measured", "exchanges",
                                         "samples", "invalid", "lost" };
#define NSTAT (sizeof stat_keys / sizeof stat_keys[0])

/* Counts add up across shards; delay percentiles do not, so each shard's
 * are shown, and the cluster's maximum. */
static int cmd_stats(const cli_t *cli)
{
    json_t *shards = json_array(), *total = json_object();
    json_int_t max_delay = 0;
    for (int k = 0; k < cli->count; k++) {
        int status = 0;
        json_t *v = fetch(cli, k, "/v1/stats", &status);
        if (!v || status != 200) {
            if (v)
                fprintf(stderr, "ticksync-admin: shard %d answered %d\n", k, status);
            json_decref(v);
            json_decref(shards);
            json_decref(total);
            return 1;
        }
        for (size_t i = 0; i < NSTAT; i++)
            json_object_set_new(total, stat_keys[i], json_integer(num(total, stat_keys[i]) + num(v, stat_keys[i])));
        json_int_t m = num(json_object_get(v, "delay_us"), "max");
        if (m > max_delay)
            max_delay = m;
        json_object_set_new(v, "shard", json_integer(k));
        json_object_set_new(v, "url", json_string(cli->urls[k]));
        json_array_append_new(shards, v);
    }
    json_object_set_new(total, "delay_max_us", json_integer(max_delay));
    int rc = 0;
    if (cli->json) {
        json_t *out = json_pack("{s:o,s:o}", "total", total, "shards", shards);
        rc = print_json(out);
        json_decref(out);
        return rc;
    }
    printf("%-6s %8s %8s %10s %10s %8s %8s %9s %9s %9s %9s\n", "SHARD", "ONLINE", "KNOWN", "EXCHANGES", "SAMPLES",
           "INVALID", "LOST", "P50_MS", "P90_MS", "P99_MS", "MAX_MS");
    size_t i;
    json_t *v;
    json_array_foreach(shards, i, v) {
        json_t *d = json_object_get(v, "delay_us");
        printf("%-6lld %8lld %8lld %10lld %10lld %8lld %8lld %9.3f %9.3f %9.3f %9.3f\n", (long long) num(v, "shard"),
               (long long) num(v, "players_online"), (long long) num(v, "players_known"),
               (long long) num(v, "exchanges"), (long long) num(v, "samples"), (long long) num(v, "invalid"),
               (long long) num(v, "lost"), ms(num(d, "p50")), ms(num(d, "p90")), ms(num(d, "p99")),
               ms(num(d, "max")));
    }
    printf("%-6s %8lld %8lld %10lld %10lld %8lld %8lld %9s %9s %9s %9.3f\n", "all", (long long) num(total, "players_online"),
           (long long) num(total, "players_known"), (long long) num(total, "exchanges"),
           (long long) num(total, "samples"), (long long) num(total, "invalid"), (long long) num(total, "lost"), "-",
           "-", "-", ms(max_delay));
    json_decref(shards);
    json_decref(total);
    return rc;
}

/* Splits the comma-separated URLs into cli->urls. */
static int split_urls(cli_t *cli, const char *list)
{
    char *copy = strdup(list), *save = NULL;
    for (char *u = copy ? strtok_r(copy, ",", &save) : NULL; u; u = strtok_r(NULL, ",", &save)) {
        if (cli->count == SHARDS_MAX)
            break;
        cli->urls[cli->count++] = strdup(u);
    }
    free(copy);
    return cli->count;
}

/* One shard's database, copied by its admin API (GET /v1/backup) into
 * out: written beside it first, checked to be an SQLite file, synced, and
 * only then renamed, so out is either the whole copy or untouched. */
static int cmd_backup(const cli_t *cli, const char *out)
{
    if (cli->count != 1) {
        fprintf(stderr, "ticksync-admin: backup copies one shard: give --admin its one URL (%d given)\n", cli->count);
        return 2;
    }
    size_t n = strlen(out) + sizeof ".partial";
    char *partial = malloc(n);
    if (!partial)
        return 1;
    snprintf(partial, n, "%s.partial", out);
    int fd = open(partial, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    char err[TS_ERR_MAX], magic[16] = { 0 };
    int status = fd < 0 ? -1 : ts_http_get_file(cli->urls[0], "/v1/backup", cli->token, cli->timeout_ms, fd, err);
    if (fd < 0)
        snprintf(err, TS_ERR_MAX, "cannot create %s: %s", partial, strerror(errno));
    else if (status == 200 && (pread(fd, magic, sizeof magic, 0) != (ssize_t) sizeof magic
                               || memcmp(magic, "SQLite format 3", sizeof magic) != 0))
        snprintf(err, TS_ERR_MAX, "the answer is not an SQLite database"), status = -1;
    else if (status == 200 && (fsync(fd) < 0 || rename(partial, out) < 0))
        snprintf(err, TS_ERR_MAX, "cannot write %s: %s", out, strerror(errno)), status = -1;
    off_t size = fd >= 0 ? lseek(fd, 0, SEEK_END) : 0;
    if (fd >= 0)
        close(fd);
    if (status != 200)
        unlink(partial);
    free(partial);
    if (status == 200) {
        printf("backup of %s: %lld bytes in %s\n", cli->urls[0], (long long) size, out);
        return 0;
    }
    if (status > 0)
        fprintf(stderr, "ticksync-admin: %s answered %d: %s\n", cli->urls[0], status, err);
    else
        fprintf(stderr, "ticksync-admin: backup from %s failed: %s\n", cli->urls[0], err);
    return 1;
}

/* A CurveZMQ certificate for a gate or a scene, in czmq's zcert files:
 * PATH holds the public key (give it to the other side), PATH_secret both
 * (keep it, mode 0600). */
static int cmd_keygen(const char *path)
{
    zcert_t *cert = zcert_new();
    if (cert)
        zcert_set_meta(cert, "created-by", "ticksync-admin keygen");
    int rc = cert ? zcert_save(cert, path) : -1;
    if (rc == 0)
        printf("public certificate %s, secret certificate %s_secret, public key %s\n", path, path, zcert_public_txt(cert));
    else
        fprintf(stderr, "ticksync-admin: cannot write %s and %s_secret\n", path, path);
    zcert_destroy(&cert);
    return rc == 0 ? 0 : 1;
}

/* ticksync-admin fleet: --since as a span back from now. */
static int cmd_fleet(ts_config_t *cfg, const cli_t *cli)
{
    int64_t span = tools_span_us(ts_config_str(cfg, "since"));
    const char *db = ts_config_str(cfg, "clickhouse-db");
    if (span <= 0)
        return ts_config_fail(cfg, "fleet: --since '%s' is not a span (90s, 30m, 2h, 7d)", ts_config_str(cfg, "since"));
    if (!*db || strspn(db, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != strlen(db))
        return ts_config_fail(cfg, "fleet: --clickhouse-db '%s' is not a plain name (letters, digits, _)", db);
    const char *clickhouse = ts_config_str(cfg, "clickhouse");
    tools_fleet_options_t o = { .clickhouse = clickhouse ? clickhouse : "http://127.0.0.1:8123", .database = db,
                                .since_us = ts_clock_real_us() - span, .worst = (int) ts_config_int(cfg, "n"),
                                .timeout_ms = cli->timeout_ms < 30000 ? 30000 : cli->timeout_ms, .json = cli->json };
    return tools_fleet_run(&o);
}

int main(int argc, char **argv)
{
    /* "-n N" is the one short flag: the settings know it as --n. */
    char **args = calloc((size_t) argc + 1, sizeof *args);
    if (!args)
        return 1;
    for (int i = 0; i < argc; i++)
        args[i] = strcmp(argv[i], "-n") == 0 ? "--n" : argv[i];
    ts_config_t *cfg = ts_config_new("ticksync-admin", "[options] latency PLAYER | history PLAYER [--from US --to US | --last 1h] | top [--worst|--best] [-n N] | stats | dashboard [--listen HOST:PORT] | backup --out FILE | fleet [--since 7d] [-n N] | reshard [--journal DIR] [--wait-s S] | keygen PATH",
                                     "Asks the ticksync scene shards' admin APIs for player latency.",
                                     settings, sizeof settings / sizeof settings[0]);
    ts_config_rc_t rc = cfg ? ts_config_load(cfg, argc, args) : TS_CONFIG_BAD;
    cli_t cli = { .json = cfg && ts_config_bool(cfg, "json") };
    const char *cmd = rc == TS_CONFIG_OK && ts_config_argc(cfg) > 0 ? ts_config_arg(cfg, 0) : NULL;
    size_t token_len = 0;
    char *token = NULL;
    if (rc == TS_CONFIG_OK && !cmd)
        rc = ts_config_fail(cfg, "a command is needed: latency PLAYER, top or stats (see --help)");
    else if (rc == TS_CONFIG_OK && split_urls(&cli, ts_config_str(cfg, "admin")) == 0)
        rc = ts_config_fail(cfg, "--admin lists no URL");
    else if (rc == TS_CONFIG_OK && ts_config_bool(cfg, "worst") && ts_config_bool(cfg, "best"))
        rc = ts_config_fail(cfg, "--worst and --best exclude each other");
    else if (rc == TS_CONFIG_OK && ts_config_str(cfg, "token-file")
             && !(token = (char *) ts_token_read_secret(ts_config_str(cfg, "token-file"), &token_len)))
        rc = ts_config_fail(cfg, "token-file: cannot read '%s'", ts_config_str(cfg, "token-file"));
    int status = rc == TS_CONFIG_EXIT ? 0 : 2;
    if (rc == TS_CONFIG_OK) {
        cli.token = token;
        cli.timeout_ms = (int) ts_config_int(cfg, "timeout-ms");
        if (strcmp(cmd, "latency") == 0 && ts_config_argc(cfg) == 2)
            status = cmd_latency(&cli, ts_config_arg(cfg, 1));
        else if (strcmp(cmd, "top") == 0 && ts_config_argc(cfg) == 1)
            status = cmd_top(&cli, !ts_config_bool(cfg, "best"), (int) ts_config_int(cfg, "n"));
        else if (strcmp(cmd, "history") == 0 && ts_config_argc(cfg) == 2)
            status = cmd_history(&cli, ts_config_arg(cfg, 1), ts_config_str(cfg, "from"), ts_config_str(cfg, "to"),
                                 ts_config_str(cfg, "last"));
        else if (strcmp(cmd, "dashboard") == 0 && ts_config_argc(cfg) == 1)
            status = cmd_dashboard(&cli, ts_config_str(cfg, "listen"), ts_config_str(cfg, "clickhouse"),
                                   ts_config_str(cfg, "clickhouse-db"));
        else if (strcmp(cmd, "stats") == 0 && ts_config_argc(cfg) == 1)
            status = cmd_stats(&cli);
        else if (strcmp(cmd, "backup") == 0 && ts_config_argc(cfg) == 1 && ts_config_str(cfg, "out"))
            status = cmd_backup(&cli, ts_config_str(cfg, "out"));
        else if (strcmp(cmd, "fleet") == 0 && ts_config_argc(cfg) == 1)
            status = cmd_fleet(cfg, &cli);
        else if (strcmp(cmd, "reshard") == 0 && ts_config_argc(cfg) == 1)
            status = tools_reshard_run(&(tools_reshard_options_t) {
                .urls = cli.urls, .count = cli.count, .token = cli.token, .timeout_ms = cli.timeout_ms,
                .journal = ts_config_str(cfg, "journal"), .wait_s = (int) ts_config_int(cfg, "wait-s"),
                .json = cli.json });
        else if (strcmp(cmd, "keygen") == 0 && ts_config_argc(cfg) == 2)
            status = cmd_keygen(ts_config_arg(cfg, 1));
        else
            ts_config_fail(cfg, "unknown command or arguments: '%s' (see --help)", cmd);
    }
    for (int k = 0; k < cli.count; k++)
        free(cli.urls[k]);
    free(token);
    free(args);
    ts_config_destroy(&cfg);
    return status;
}
