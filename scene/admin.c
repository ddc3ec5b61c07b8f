/* scene/admin.c - see admin.h. Requests are answered whole, from one
 * buffer; every answer but /metrics is JSON built with jansson. */
#include "admin.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "backup.h"
#include "clock.h"
#include "err.h"
#include "httpd.h"
#include "move.h"
#include "reader.h"
#include "shard.h"
#include "wire.h"
#include "worker.h"

#define QUIET_MARGIN_US 2000000   /* past --idle-s, for the workers' sweep to have let a player go */

struct scene_admin_t {
    ts_httpd_t     *httpd;
    scene_reader_t *reader;
    ts_log_t       *log;
    char           *db;
    int64_t         history_step_us;
    scene_health_t *health;
    int             workers;
    int64_t         idle_us;
    scene_move_t   *move;         /* the releases' read-write connection, made at the first */
    zsock_t        *to_writer;    /* adopted history, made at the first adoption */
    zsock_t       **to_worker;    /* adopted rows, one a worker */
};

/* A row as the API shows it: the schema's columns, plus online and delay_us. */
static json_t *row_json(const scene_row_t *r)
{
    json_t *v = json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:b,s:I,s:b,s:I}",
                          "player_id", (json_int_t) r->player_id, "rtt_us", (json_int_t) r->rtt_us,
                          "srtt_us", (json_int_t) r->srtt_us, "rttvar_us", (json_int_t) r->rttvar_us,
                          "min_rtt_us", (json_int_t) r->min_rtt_us, "samples", (json_int_t) r->samples,
                          "invalid", (json_int_t) r->invalid, "lost", (json_int_t) r->lost,
                          "client_rtt_us", (json_int_t) r->client_rtt_us,
                          "client_offset_us", (json_int_t) r->client_offset_us,
                          "updated_at_us", (json_int_t) r->updated_at_us, "lag_flag", (int) (r->lag_flag != 0),
                          "lag_strikes", (json_int_t) r->lag_strikes, "online", (int) (r->online != 0),
                          "delay_us", (json_int_t) (r->srtt_us / 2));
    json_object_set_new(v, "clock_rate_ppm", r->clock_rate_known ? json_integer(r->clock_rate_ppm) : json_null());
    json_object_set_new(v, "speed_flag", json_boolean(r->speed_flag != 0));
    return v;
}

/* A decimal in [1, max] with nothing else, or 0. */
static uint64_t parse_positive(const char *s, uint64_t max)
{
    if (!s || *s < '1' || *s > '9' || strlen(s) > 20)
        return 0;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    return (*end || errno || v > max) ? 0 : (uint64_t) v;
}

/* A signed decimal time in µs, with nothing else: true and *out. */
static bool parse_us(const char *s, int64_t *out)
{
    if (!s || !*s || strlen(s) > 20)
        return false;
    errno = 0;
    char *end;
    long long v = strtoll(s, &end, 10);
    *out = v;
    return !*end && !errno;
}

/* GET /v1/players/{id}/history?from=US&to=US: the steps starting in
 * [from, to), the last hour by default. */
static int get_history(scene_admin_t *a, ts_http_req_t *c, uint64_t id)
{
    const char *from_text = ts_http_arg(c, "from"), *to_text = ts_http_arg(c, "to");
    int64_t to = ts_clock_real_us(), from = to - 3600000000LL;
    if ((to_text && !parse_us(to_text, &to)) || (from_text && !parse_us(from_text, &from)))
        return ts_http_error(c, 400, "from and to must be integers (server time, microseconds)");
    if (!from_text && to_text)
        from = to - 3600000000LL;
    if (from >= to)
        return ts_http_error(c, 400, "from must be before to");
    scene_row_t row;
    int rc = scene_reader_get(a->reader, id, &row);
    if (rc == 0)
        return ts_http_error(c, 404, "unknown player");
    scene_history_row_t *steps = rc < 0 ? NULL : malloc(SCENE_ADMIN_POINTS_MAX * sizeof *steps);
    int n = steps ? scene_reader_history(a->reader, id, from, to, steps, SCENE_ADMIN_POINTS_MAX) : -1;
    json_t *points = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(points, json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "t_us", (json_int_t) steps[i].t_us,
                                                "exchanges", (json_int_t) steps[i].exchanges,
                                                "lost", (json_int_t) steps[i].lost,
                                                "rtt_min_us", (json_int_t) steps[i].rtt_min_us,
                                                "rtt_p50_us", (json_int_t) steps[i].rtt_p50_us,
                                                "rtt_max_us", (json_int_t) steps[i].rtt_max_us,
                                                "jitter_us", (json_int_t) steps[i].jitter_us));
    free(steps);
    if (n < 0) {
        json_decref(points);
        return ts_http_error(c, 503, "store unreadable");
    }
    return ts_http_json(c, 200, json_pack("{s:I,s:I,s:o}", "player_id", (json_int_t) id, "step_s",
                                          (json_int_t) (a->history_step_us / 1000000), "points", points));
}

static int get_player(scene_admin_t *a, ts_http_req_t *c, const char *id_text)
{
    /* SQLite keeps player_id as a signed 64-bit integer. */
    char id_only[32];
    const char *slash = strchr(id_text, '/');
    bool history = slash && strcmp(slash, "/history") == 0;
    if (slash && (!history || (size_t) (slash - id_text) >= sizeof id_only))
        return ts_http_not_found(c);
    if (history) {
        memcpy(id_only, id_text, (size_t) (slash - id_text));
        id_only[slash - id_text] = 0;
        id_text = id_only;
    }
    uint64_t id = parse_positive(id_text, INT64_MAX);
    if (!id)
        return ts_http_error(c, 400, "player id must be a positive integer");
    if (history)
        return get_history(a, c, id);
    scene_row_t row;
    int rc = scene_reader_get(a->reader, id, &row);
    if (rc < 0)
        return ts_http_error(c, 503, "store unreadable");
    if (rc == 0)
        return ts_http_error(c, 404, "unknown player");
    return ts_http_json(c, 200, row_json(&row));
}

static int list_players(scene_admin_t *a, ts_http_req_t *c)
{
    const char *order = ts_http_arg(c, "order");
    const char *limit_text = ts_http_arg(c, "limit");
    const char *flag = ts_http_arg(c, "flag");
    if (flag && strcmp(flag, "lag") != 0 && strcmp(flag, "speed") != 0)
        return ts_http_error(c, 400, "flag must be lag or speed");
    if (order && strcmp(order, "worst") != 0 && strcmp(order, "best") != 0)
        return ts_http_error(c, 400, "order must be worst or best");
    int limit = limit_text ? (int) parse_positive(limit_text, SCENE_ADMIN_LIMIT_MAX) : 10;
    if (!limit)
        return ts_http_error(c, 400, "limit must be an integer from 1 to 1000");
    scene_row_t *rows = malloc((size_t) limit * sizeof *rows);
    int n = !rows ? -1
          : flag ? scene_reader_flagged(a->reader, strcmp(flag, "speed") == 0, rows, limit)
                 : scene_reader_top(a->reader, !order || strcmp(order, "worst") == 0, rows, limit);
    json_t *list = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(list, row_json(&rows[i]));
    free(rows);
    if (n < 0) {
        json_decref(list);
        return ts_http_error(c, 503, "store unreadable");
    }
    return ts_http_json(c, 200, json_pack("{s:o}", "players", list));
}

static int get_stats(scene_admin_t *a, ts_http_req_t *c)
{
    scene_summary_t s;
    if (scene_reader_summary(a->reader, &s) < 0)
        return ts_http_error(c, 503, "store unreadable");
    return ts_http_json(c, 200,
                       json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:{s:I,s:I,s:I,s:I}}",
                                 "players_online", (json_int_t) s.online, "players_known", (json_int_t) s.known,
                                 "players_measured", (json_int_t) s.measured,
                                 "exchanges", (json_int_t) (s.samples + s.invalid),
                                 "samples", (json_int_t) s.samples, "invalid", (json_int_t) s.invalid,
                                 "lost", (json_int_t) s.lost, "delay_us",
                                 "p50", (json_int_t) s.delay_p50_us, "p90", (json_int_t) s.delay_p90_us,
                                 "p99", (json_int_t) s.delay_p99_us, "max", (json_int_t) s.delay_max_us));
}

/* GET /v1/backup: the store as of its last committed flush, a whole
 * SQLite file (backup.h); this thread answers nothing else meanwhile. */
static int get_backup(scene_admin_t *a, ts_http_req_t *c)
{
    char err[TS_ERR_MAX];
    int64_t size = 0, t0 = ts_clock_mono_us();
    int fd = scene_backup_take(a->db, &size, err);
    if (fd < 0) {
        ts_log(a->log, TS_LOG_WARN, "backup", "failed: %s", err);
        return ts_http_error(c, 503, err);
    }
    ts_log(a->log, TS_LOG_INFO, "backup", "bytes=%lld ms=%lld", (long long) size,
           (long long) ((ts_clock_mono_us() - t0) / 1000));
    return ts_http_file(c, 200, "application/vnd.sqlite3", fd, (uint64_t) size);
}

/* ?shards=N&shard=K: the new shard count (1..65536) and this shard's
 * place in it (0..N-1). */
static bool parse_shards(ts_http_req_t *c, uint32_t *shards, uint32_t *shard)
{
    uint64_t n = parse_positive(ts_http_arg(c, "shards"), 65536);
    const char *k = ts_http_arg(c, "shard");
    uint64_t place = k && strcmp(k, "0") == 0 ? 0 : parse_positive(k, 65535);
    if (!n || !k || (place == 0 && strcmp(k, "0") != 0) || place >= n)
        return false;
    *shards = (uint32_t) n;
    *shard = (uint32_t) place;
    return true;
}

/* POST /v1/reshard/release?shards=N&shard=K&limit=L: a batch of the
 * players that now belong to another shard, deleted here (scene/move.h). */
static int release(scene_admin_t *a, ts_http_req_t *c)
{
    char err[TS_ERR_MAX];
    scene_move_ask_t ask = { .limit = 100 };
    const char *limit = ts_http_arg(c, "limit");
    if (!parse_shards(c, &ask.shards, &ask.shard))
        return ts_http_error(c, 400, "shards must be a count and shard this shard's place in it (0 to shards - 1)");
    if (limit && !(ask.limit = (int) parse_positive(limit, SCENE_ADMIN_RELEASE_MAX)))
        return ts_http_error(c, 400, "limit must be an integer from 1 to 10000");
    if (!a->move && !(a->move = scene_move_new(a->db, err)))
        return ts_http_error(c, 503, err);
    ask.quiet_before_us = ts_clock_real_us() - a->idle_us - QUIET_MARGIN_US;
    int64_t t0 = ts_clock_mono_us();
    json_t *out = scene_move_release(a->move, &ask, err);
    if (!out)
        return ts_http_error(c, 503, err);
    json_int_t n = json_integer_value(json_object_get(out, "released"));
    if (n)   /* took: how long the shard's writer may have waited on the transaction */
        ts_log(a->log, TS_LOG_INFO, "players_released", "players=%lld shards=%u shard=%u took_ms=%.1f", (long long) n,
               ask.shards, ask.shard, (double) (ts_clock_mono_us() - t0) / 1e3);
    return ts_http_json(c, 200, out);
}

/* The sockets adoptions go out on, made by the HTTP thread that uses them. */
static int adopt_sockets(scene_admin_t *a)
{
    char ep[64];
    if (!a->to_writer)
        a->to_writer = zsock_new_push(">" SCENE_EP_STORE);
    if (!a->to_worker && (a->to_worker = calloc((size_t) a->workers, sizeof *a->to_worker)))
        for (int w = 0; w < a->workers; w++)
            a->to_worker[w] = zsock_new_push(scene_worker_endpoint(ep, '>', w));
    for (int w = 0; a->to_worker && w < a->workers; w++)
        if (!a->to_worker[w])
            return -1;
    return a->to_writer && a->to_worker ? 0 : -1;
}

/* POST /v1/reshard/adopt?shards=N&shard=K with released players (the body
 * of a release's answer): each one's history to the writer, its row to its
 * worker, which merges it into its own. All of them hash here, or none is
 * taken (409). */
static int adopt(scene_admin_t *a, ts_http_req_t *c)
{
    uint32_t shards, shard;
    size_t len;
    const char *body = ts_http_body(c, &len);
    json_error_t jerr;
    if (!parse_shards(c, &shards, &shard))
        return ts_http_error(c, 400, "shards must be a count and shard this shard's place in it (0 to shards - 1)");
    json_t *v = body ? json_loadb(body, len, 0, &jerr) : NULL;
    json_t *players = json_object_get(v, "players");
    if (!json_is_array(players)) {
        json_decref(v);
        return ts_http_error(c, 400, "the body is {\"players\": [...]}, as a release answers");
    }
    size_t cap = 0, i;
    json_t *p;
    json_array_foreach(players, i, p) {
        json_int_t id = json_integer_value(json_object_get(json_object_get(p, "row"), "player_id"));
        size_t n = json_array_size(json_object_get(p, "history"));
        cap = n > cap ? n : cap;
        if (id > 0 && ts_shard_of((uint64_t) id, (int) shards) != (int) shard) {
            json_decref(v);
            return ts_http_error(c, 409, "a player that does not hash to this shard: nothing adopted");
        }
    }
    size_t count = json_array_size(players);
    scene_row_t *rows = calloc(count + 1, sizeof *rows);
    scene_history_row_t *hist = calloc(cap + 1, sizeof *hist);
    char err[TS_ERR_MAX] = "out of memory";
    bool ok = rows && hist;
    if (ok && adopt_sockets(a) < 0) {
        snprintf(err, TS_ERR_MAX, "cannot reach the workers");
        ok = false;
    }
    size_t nhist = 0;
    json_array_foreach(players, i, p) {   /* every player parses before any is sent */
        if (ok && scene_move_player_of(p, &rows[i], hist, cap, &nhist, err) < 0)
            ok = false;
    }
    json_int_t history_rows = 0;
    unsigned status = ok ? 200 : !rows || !hist || !a->to_writer || !a->to_worker ? 503 : 400;
    json_array_foreach(players, i, p) {   /* each one's history parsed again into the one buffer, and sent */
        if (!ok || scene_move_player_of(p, &rows[i], hist, cap, &nhist, err) < 0)
            break;
        if (nhist && zsock_send(a->to_writer, "bb", "H", (size_t) 1, hist, nhist * sizeof *hist) < 0)
            ok = false;
        int w = scene_worker_of(rows[i].player_id, a->workers);
        if (ok && zsock_send(a->to_worker[w], "bb", "A", (size_t) 1, &rows[i], sizeof rows[i]) < 0)
            ok = false;
        history_rows += (json_int_t) nhist;
    }
    json_int_t n = (json_int_t) count;
    free(rows);
    free(hist);
    json_decref(v);
    if (!ok)
        return ts_http_error(c, status == 200 ? 503 : status, err);   /* 200 so far: a send failed */
    if (n)
        ts_log(a->log, TS_LOG_INFO, "players_adopted", "players=%lld history_rows=%lld", (long long) n,
               (long long) history_rows);
    return ts_http_json(c, 200, json_pack("{s:I,s:I}", "adopted", n, "history_rows", history_rows));
}

/* The /v1 routes; ts_httpd serves /metrics and /healthz. */
static int on_request(void *arg, ts_http_req_t *c, const char *url, bool get)
{
    scene_admin_t *a = arg;
    bool reshard = strcmp(url, "/v1/reshard/release") == 0 || strcmp(url, "/v1/reshard/adopt") == 0;
    bool known = reshard || strcmp(url, "/v1/stats") == 0 || strcmp(url, "/v1/backup") == 0
              || strcmp(url, "/v1/players") == 0 || strncmp(url, "/v1/players/", 12) == 0;
    if (!known)
        return ts_http_not_found(c);
    if (reshard && strcmp(ts_http_method(c), "POST") != 0)
        return ts_http_error(c, 405, "only POST");
    if (reshard)
        return strcmp(url, "/v1/reshard/release") == 0 ? release(a, c) : adopt(a, c);
    if (!get)
        return ts_http_error(c, 405, "only GET");
    if (strcmp(url, "/v1/stats") == 0)
        return get_stats(a, c);
    if (strcmp(url, "/v1/backup") == 0)
        return get_backup(a, c);
    if (strcmp(url, "/v1/players") == 0)
        return list_players(a, c);
    return get_player(a, c, url + 12);
}

/* /healthz: ok while the store answers and takes what the shard writes.
 * The gates heard from and lost are told either way: a lost gate took its
 * players offline, but the scene still serves. */
static bool healthy(void *arg, json_t *body)
{
    scene_admin_t *a = arg;
    char why[TS_ERR_MAX];
    int64_t rows = 0;
    if (a->health) {
        scene_health_gates_t g = scene_health_gates(a->health);
        json_object_set_new(body, "gates", json_integer(g.gates));
        json_object_set_new(body, "gates_lost", json_integer(g.lost));
        if (g.lost)
            json_object_set_new(body, "last_gate_lost_us", json_integer(g.last_lost_us));
    }
    if (a->health && scene_health_store_why(a->health, why, sizeof why, &rows)) {
        json_object_set_new(body, "status", json_string("store failing"));
        json_object_set_new(body, "reason", json_string(why));
        json_object_set_new(body, "unwritten_rows", json_integer(rows));
        return false;
    }
    bool ok = scene_reader_ok(a->reader);
    json_object_set_new(body, "status", json_string(ok ? "ok" : "store unreadable"));
    return ok;
}

scene_admin_t *scene_admin_new(const scene_admin_options_t *opt, char *err)
{
    scene_admin_t *a = calloc(1, sizeof *a);
    if (!a) {
        snprintf(err, TS_ERR_MAX, "out of memory");
        return NULL;
    }
    a->log = opt->log;
    a->db = strdup(opt->db);
    a->history_step_us = opt->history_step_us;
    a->health = opt->health;
    a->workers = opt->workers > 0 ? opt->workers : 1;
    a->idle_us = opt->idle_us;
    a->reader = scene_reader_new(opt->db, err);
    ts_httpd_options_t ho = { .listen = opt->listen, .what = "admin HTTP", .metrics = opt->metrics,
                              .requests_metric = "ticksync_scene_admin_requests_total", .token = opt->token,
                              .max_connections = 256, .health = healthy, .handler = on_request, .arg = a,
                              .max_body = SCENE_ADMIN_BODY_MAX };
    if (!a->db || !a->reader || !(a->httpd = ts_httpd_new(&ho, err)))
        scene_admin_destroy(&a);
    return a;
}

void scene_admin_destroy(scene_admin_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    scene_admin_t *a = *self_p;
    ts_httpd_destroy(&a->httpd);   /* first: its thread reads through the reader */
    scene_reader_destroy(&a->reader);
    scene_move_destroy(&a->move);
    zsock_destroy(&a->to_writer);
    for (int w = 0; a->to_worker && w < a->workers; w++)
        zsock_destroy(&a->to_worker[w]);
    free(a->to_worker);
    free(a->db);
    free(a);
    *self_p = NULL;
}
