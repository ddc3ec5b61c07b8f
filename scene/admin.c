/* scene/admin.c - see admin.h. Requests are answered whole, from one
 * buffer; every answer but /metrics is JSON built with jansson. */
#include "admin.h"

#include <errno.h>
#include <jansson.h>
#include <microhttpd.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>

#include "addr.h"
#include "reader.h"

struct scene_admin_t {
    struct MHD_Daemon *daemon;
    scene_reader_t    *reader;
    char              *token;
    ts_metrics_t      *metrics;
    ts_log_t          *log;
    ts_metric_t       *answers[6];   /* by status, in the order of status_codes */
};

static const unsigned status_codes[] = { 200, 400, 401, 404, 405, 503 };

static void count_status(scene_admin_t *a, unsigned status)
{
    for (size_t i = 0; i < sizeof status_codes / sizeof status_codes[0]; i++)
        if (status_codes[i] == status)
            ts_metric_add(a->answers[i], 1);
}

/* Queues body (malloc'd, taken) with the given status and content type. */
static enum MHD_Result answer(scene_admin_t *a, struct MHD_Connection *c, unsigned status, const char *type,
                              char *body)
{
    count_status(a, status);
    if (!body)
        return MHD_NO;
    struct MHD_Response *r = MHD_create_response_from_buffer(strlen(body), body, MHD_RESPMEM_MUST_FREE);
    if (!r) {
        free(body);
        return MHD_NO;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    if (status == 401)
        MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer");
    if (status == 405)
        MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET");
    enum MHD_Result rc = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return rc;
}

/* Answers a JSON value (taken). */
static enum MHD_Result answer_json(scene_admin_t *a, struct MHD_Connection *c, unsigned status, json_t *v)
{
    char *body = v ? json_dumps(v, JSON_COMPACT) : NULL;
    json_decref(v);
    if (body) {
        size_t n = strlen(body);
        char *nl = realloc(body, n + 2);
        if (nl) {
            body = nl;
            memcpy(body + n, "\n", 2);
        }
    }
    return answer(a, c, status, "application/json", body);
}

static enum MHD_Result answer_error(scene_admin_t *a, struct MHD_Connection *c, unsigned status, const char *why)
{
    return answer_json(a, c, status, json_pack("{s:s}", "error", why));
}

/* A row as the API shows it: the schema's columns, plus online and delay_us. */
static json_t *row_json(const scene_row_t *r)
{
    return json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:b,s:I,s:b,s:I}",
                     "player_id", (json_int_t) r->player_id, "rtt_us", (json_int_t) r->rtt_us,
                     "srtt_us", (json_int_t) r->srtt_us, "rttvar_us", (json_int_t) r->rttvar_us,
                     "min_rtt_us", (json_int_t) r->min_rtt_us, "samples", (json_int_t) r->samples,
                     "invalid", (json_int_t) r->invalid, "lost", (json_int_t) r->lost,
                     "client_rtt_us", (json_int_t) r->client_rtt_us,
                     "client_offset_us", (json_int_t) r->client_offset_us,
                     "updated_at_us", (json_int_t) r->updated_at_us, "lag_flag", (int) (r->lag_flag != 0),
                     "lag_strikes", (json_int_t) r->lag_strikes, "online", (int) (r->online != 0),
                     "delay_us", (json_int_t) (r->srtt_us / 2));
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

static enum MHD_Result get_player(scene_admin_t *a, struct MHD_Connection *c, const char *id_text)
{
    /* SQLite keeps player_id as a signed 64-bit integer. */
    uint64_t id = parse_positive(id_text, INT64_MAX);
    if (!id)
        return answer_error(a, c, 400, "player id must be a positive integer");
    scene_row_t row;
    int rc = scene_reader_get(a->reader, id, &row);
    if (rc < 0)
        return answer_error(a, c, 503, "store unreadable");
    if (rc == 0)
        return answer_error(a, c, 404, "unknown player");
    return answer_json(a, c, 200, row_json(&row));
}

static enum MHD_Result list_players(scene_admin_t *a, struct MHD_Connection *c)
{
    const char *order = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "order");
    const char *limit_text = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "limit");
    if (order && strcmp(order, "worst") != 0 && strcmp(order, "best") != 0)
        return answer_error(a, c, 400, "order must be worst or best");
    int limit = limit_text ? (int) parse_positive(limit_text, SCENE_ADMIN_LIMIT_MAX) : 10;
    if (!limit)
        return answer_error(a, c, 400, "limit must be an integer from 1 to 1000");
    scene_row_t *rows = malloc((size_t) limit * sizeof *rows);
    int n = rows ? scene_reader_top(a->reader, !order || strcmp(order, "worst") == 0, rows, limit) : -1;
    json_t *list = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(list, row_json(&rows[i]));
    free(rows);
    if (n < 0) {
        json_decref(list);
        return answer_error(a, c, 503, "store unreadable");
    }
    return answer_json(a, c, 200, json_pack("{s:o}", "players", list));
}

static enum MHD_Result get_stats(scene_admin_t *a, struct MHD_Connection *c)
{
    scene_summary_t s;
    if (scene_reader_summary(a->reader, &s) < 0)
        return answer_error(a, c, 503, "store unreadable");
    return answer_json(a, c, 200,
                       json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:{s:I,s:I,s:I,s:I}}",
                                 "players_online", (json_int_t) s.online, "players_known", (json_int_t) s.known,
                                 "players_measured", (json_int_t) s.measured,
                                 "exchanges", (json_int_t) (s.samples + s.invalid),
                                 "samples", (json_int_t) s.samples, "invalid", (json_int_t) s.invalid,
                                 "lost", (json_int_t) s.lost, "delay_us",
                                 "p50", (json_int_t) s.delay_p50_us, "p90", (json_int_t) s.delay_p90_us,
                                 "p99", (json_int_t) s.delay_p99_us, "max", (json_int_t) s.delay_max_us));
}

/* "Authorization: Bearer <token>", compared in constant time. */
static bool authorized(scene_admin_t *a, struct MHD_Connection *c)
{
    if (!a->token)
        return true;
    const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
    size_t n = strlen(a->token);
    return h && strncmp(h, "Bearer ", 7) == 0 && strlen(h + 7) == n && sodium_memcmp(h + 7, a->token, n) == 0;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *upload, size_t *upload_size, void **state)
{
    (void) version;
    (void) upload;
    scene_admin_t *a = cls;
    if (!*state) {           /* headers only so far: wait for the (empty) body */
        *state = a;
        return MHD_YES;
    }
    *upload_size = 0;
    bool known = strcmp(url, "/healthz") == 0 || strcmp(url, "/metrics") == 0 || strcmp(url, "/v1/stats") == 0
                 || strcmp(url, "/v1/players") == 0 || strncmp(url, "/v1/players/", 12) == 0;
    if (!known)
        return answer_error(a, c, 404, "no such path");
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
        return answer_error(a, c, 405, "only GET");
    if (strcmp(url, "/healthz") == 0) {
        bool ok = scene_reader_ok(a->reader);
        return answer_json(a, c, ok ? 200 : 503, json_pack("{s:s}", "status", ok ? "ok" : "store unreadable"));
    }
    if (!authorized(a, c))
        return answer_error(a, c, 401, "bearer token required");
    if (strcmp(url, "/metrics") == 0)
        return answer(a, c, 200, "text/plain; version=0.0.4; charset=utf-8", ts_metrics_render(a->metrics));
    if (strcmp(url, "/v1/stats") == 0)
        return get_stats(a, c);
    if (strcmp(url, "/v1/players") == 0)
        return list_players(a, c);
    return get_player(a, c, url + 12);
}

scene_admin_t *scene_admin_new(const scene_admin_options_t *opt, char *err)
{
    struct sockaddr_storage addr;
    socklen_t len;
    if (ts_addr_parse(opt->listen, &addr, &len, err) < 0)
        return NULL;
    scene_admin_t *a = calloc(1, sizeof *a);
    if (!a) {
        snprintf(err, 256, "out of memory");
        return NULL;
    }
    a->metrics = opt->metrics;
    a->log = opt->log;
    for (size_t i = 0; i < sizeof status_codes / sizeof status_codes[0]; i++) {
        char labels[32];
        snprintf(labels, sizeof labels, "code=\"%u\"", status_codes[i]);
        a->answers[i] = ts_metrics_counter(opt->metrics, "ticksync_scene_admin_requests_total",
                                           "admin HTTP answers by status code", labels);
    }
    a->token = opt->token ? strdup(opt->token) : NULL;
    a->reader = scene_reader_new(opt->db, err);
    if (!a->reader || (opt->token && !a->token)) {
        scene_admin_destroy(&a);
        return NULL;
    }
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | (addr.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0);
    a->daemon = MHD_start_daemon(flags, 0, NULL, NULL, on_request, a, MHD_OPTION_SOCK_ADDR, (struct sockaddr *) &addr,
                                 MHD_OPTION_CONNECTION_LIMIT, (unsigned) 256, MHD_OPTION_CONNECTION_TIMEOUT,
                                 (unsigned) 10, MHD_OPTION_END);
    if (!a->daemon) {
        snprintf(err, 256, "cannot serve admin HTTP on %s (address in use?)", opt->listen);
        scene_admin_destroy(&a);
    }
    return a;
}

void scene_admin_destroy(scene_admin_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    scene_admin_t *a = *self_p;
    if (a->daemon)
        MHD_stop_daemon(a->daemon);
    scene_reader_destroy(&a->reader);
    free(a->token);
    free(a);
    *self_p = NULL;
}
