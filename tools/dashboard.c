/* tools/dashboard.c - see dashboard.h. */
#include "dashboard.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "fleet.h"
#include "http.h"
#include "httpd.h"
#include "metrics.h"
#include "shard.h"
#include "span.h"

#define WORST_PER_SHARD 200
#define FLAGGED_PER_SHARD 100

struct tools_dashboard_t {
    tools_dashboard_options_t opt;
    ts_metrics_t *metrics;
    ts_httpd_t   *httpd;
};

static const char page[] =
#include "dashboard_page.inc"
    ;

/* GET path of shard k as JSON (NULL: unreachable, or not a 200). */
static json_t *shard_get(const tools_dashboard_t *d, int k, const char *path)
{
    ts_http_answer_t a;
    char err[TS_ERR_MAX];
    if (ts_http_get(d->opt.urls[k], path, d->opt.token, d->opt.timeout_ms, &a, err) < 0)
        return NULL;
    json_t *v = a.status == 200 ? json_loadb(a.body, a.len, 0, NULL) : NULL;
    ts_http_free(&a);
    return v;
}

/* Appends the players of answer (taken) to list, each with its shard. */
static void merge_players(json_t *list, json_t *answer, int k)
{
    json_t *players = json_object_get(answer, "players");
    for (size_t i = 0; i < json_array_size(players); i++) {
        json_t *row = json_array_get(players, i);
        json_object_set_new(row, "shard", json_integer(k));
        json_array_append(list, row);
    }
    json_decref(answer);
}

static int cluster(tools_dashboard_t *d, ts_http_req_t *req)
{
    json_t *shards = json_array(), *players = json_array(), *lag = json_array(), *speed = json_array();
    char path[64];
    for (int k = 0; k < d->opt.count; k++) {
        json_t *stats = shard_get(d, k, "/v1/stats");
        json_array_append_new(shards, json_pack("{s:i,s:s,s:b,s:o}", "shard", k, "url", d->opt.urls[k], "up",
                                                stats != NULL, "stats", stats ? stats : json_null()));
        if (!stats)
            continue;
        snprintf(path, sizeof path, "/v1/players?order=worst&limit=%d", WORST_PER_SHARD);
        merge_players(players, shard_get(d, k, path), k);
        snprintf(path, sizeof path, "/v1/players?flag=lag&limit=%d", FLAGGED_PER_SHARD);
        merge_players(lag, shard_get(d, k, path), k);
        snprintf(path, sizeof path, "/v1/players?flag=speed&limit=%d", FLAGGED_PER_SHARD);
        merge_players(speed, shard_get(d, k, path), k);
    }
    return ts_http_json(req, 200, json_pack("{s:o,s:o,s:{s:o,s:o}}", "shards", shards, "players", players, "flagged",
                                            "lag", lag, "speed", speed));
}

static int history(tools_dashboard_t *d, ts_http_req_t *req)
{
    const char *text = ts_http_arg(req, "player");
    char *end;
    unsigned long long id = text ? strtoull(text, &end, 10) : 0;
    if (!text || *end || id == 0 || text[0] == '-')
        return ts_http_error(req, 400, "player must be a positive integer");
    int k = (int) ts_shard_of(id, (uint32_t) d->opt.count);
    char path[64];
    snprintf(path, sizeof path, "/v1/players/%llu/history", id);
    ts_http_answer_t a;
    char err[TS_ERR_MAX];
    if (ts_http_get(d->opt.urls[k], path, d->opt.token, d->opt.timeout_ms, &a, err) < 0)
        return ts_http_error(req, 503, "the player's shard is unreachable");
    int status = a.status;
    char *body = a.body;   /* handed on as it is */
    a.body = NULL;
    ts_http_free(&a);
    return ts_http_text(req, (unsigned) status, "application/json", body);
}

/* The fleet's history over since (24h by default), from ClickHouse. */
static int fleet(tools_dashboard_t *d, ts_http_req_t *req)
{
    if (!d->opt.clickhouse)
        return ts_http_error(req, 404, "no ClickHouse: start the dashboard with --clickhouse URL");
    const char *since = ts_http_arg(req, "since");
    int64_t span = tools_span_us(since ? since : "24h");
    if (!span)
        return ts_http_error(req, 400, "since must be a span: 90s, 30m, 24h, 7d");
    tools_fleet_options_t o = { .clickhouse = d->opt.clickhouse, .database = d->opt.clickhouse_db,
                                .since_us = ts_clock_real_us() - span, .worst = 10, .timeout_ms = 60000 };
    char err[TS_ERR_MAX];
    json_t *answer = tools_fleet_query(&o, err);
    return answer ? ts_http_json(req, 200, answer) : ts_http_error(req, 503, err);
}

static int on_request(void *arg, ts_http_req_t *req, const char *path, bool get)
{
    tools_dashboard_t *d = arg;
    bool known = strcmp(path, "/") == 0 || strcmp(path, "/api/cluster") == 0 || strcmp(path, "/api/history") == 0
              || strcmp(path, "/api/fleet") == 0;
    if (!known)
        return ts_http_not_found(req);
    if (!get)
        return ts_http_error(req, 405, "only GET");
    if (strcmp(path, "/api/cluster") == 0)
        return cluster(d, req);
    if (strcmp(path, "/api/history") == 0)
        return history(d, req);
    if (strcmp(path, "/api/fleet") == 0)
        return fleet(d, req);
    return ts_http_text(req, 200, "text/html; charset=utf-8", strdup(page));
}

tools_dashboard_t *tools_dashboard_new(const tools_dashboard_options_t *opt, char *err)
{
    tools_dashboard_t *d = calloc(1, sizeof *d);
    if (!d) {
        snprintf(err, TS_ERR_MAX, "out of memory");
        return NULL;
    }
    d->opt = *opt;
    d->metrics = ts_metrics_new(TS_METRICS_ANY_WRITER);
    ts_httpd_options_t ho = { .listen = opt->listen, .what = "the dashboard", .metrics = d->metrics,
                              .requests_metric = "ticksync_dashboard_requests_total", .max_connections = 64,
                              .handler = on_request, .arg = d };
    if (!d->metrics || !(d->httpd = ts_httpd_new(&ho, err))) {
        if (!d->metrics)
            snprintf(err, TS_ERR_MAX, "out of memory");
        tools_dashboard_destroy(&d);
    }
    return d;
}

void tools_dashboard_destroy(tools_dashboard_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    ts_httpd_destroy(&(*self_p)->httpd);
    ts_metrics_destroy(&(*self_p)->metrics);
    free(*self_p);
    *self_p = NULL;
}
