/* lib/httpd.c - see httpd.h. Requests are answered whole, from one buffer. */
#include "httpd.h"

#include <microhttpd.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "addr.h"
#include "err.h"

static const unsigned status_codes[] = { 200, 400, 401, 404, 405, 409, 413, 503 };
#define NSTATUS (sizeof status_codes / sizeof status_codes[0])

struct ts_httpd_t {
    struct MHD_Daemon *daemon;
    ts_httpd_options_t opt;
    char              *token;
    ts_metric_t       *answers[NSTATUS];   /* by status, in the order of status_codes */
};

struct ts_http_req_t {
    ts_httpd_t            *server;
    struct MHD_Connection *conn;
    const char            *method;
    const char            *body;     /* a POST's, NUL-terminated; NULL: none */
    size_t                 body_len;
};

/* A connection's request while its body comes in (POST only). */
typedef struct {
    char  *data;
    size_t len, cap;
    bool   too_large;
} upload_t;

static void count_status(ts_httpd_t *h, unsigned status)
{
    for (size_t i = 0; i < NSTATUS && h->answers[0]; i++)
        if (status_codes[i] == status)
            ts_metric_add(h->answers[i], 1);
}

int ts_http_text(ts_http_req_t *req, unsigned status, const char *type, char *body)
{
    count_status(req->server, status);
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
    enum MHD_Result rc = MHD_queue_response(req->conn, status, r);
    MHD_destroy_response(r);
    return rc;
}

int ts_http_file(ts_http_req_t *req, unsigned status, const char *type, int fd, uint64_t size)
{
    count_status(req->server, status);
    struct MHD_Response *r = MHD_create_response_from_fd64(size, fd);
    if (!r) {
        close(fd);
        return MHD_NO;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    enum MHD_Result rc = MHD_queue_response(req->conn, status, r);
    MHD_destroy_response(r);
    return rc;
}

int ts_http_json(ts_http_req_t *req, unsigned status, json_t *value)
{
    char *body = value ? json_dumps(value, JSON_COMPACT) : NULL;
    json_decref(value);
    if (body) {
        size_t n = strlen(body);
        char *nl = realloc(body, n + 2);
        if (nl) {
            body = nl;
            memcpy(body + n, "\n", 2);
        }
    }
    return ts_http_text(req, status, "application/json", body);
}

int ts_http_error(ts_http_req_t *req, unsigned status, const char *why)
{
    return ts_http_json(req, status, json_pack("{s:s}", "error", why));
}

const char *ts_http_method(const ts_http_req_t *req)
{
    return req->method;
}

const char *ts_http_body(const ts_http_req_t *req, size_t *len)
{
    if (len)
        *len = req->body_len;
    return req->body;
}

int ts_http_not_found(ts_http_req_t *req)
{
    return ts_http_error(req, 404, "no such path");
}

const char *ts_http_arg(ts_http_req_t *req, const char *key)
{
    return MHD_lookup_connection_value(req->conn, MHD_GET_ARGUMENT_KIND, key);
}

/* "Authorization: Bearer <token>", compared in constant time. */
static bool authorized(ts_http_req_t *req)
{
    const char *token = req->server->token;
    if (!token)
        return true;
    const char *h = MHD_lookup_connection_value(req->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
    size_t n = strlen(token);
    return h && strncmp(h, "Bearer ", 7) == 0 && strlen(h + 7) == n && sodium_memcmp(h + 7, token, n) == 0;
}

static int healthz(ts_http_req_t *req)
{
    ts_httpd_t *h = req->server;
    json_t *body = json_object();
    if (!body)
        return MHD_NO;
    bool ok = h->opt.health ? h->opt.health(h->opt.arg, body) : true;
    if (!json_object_get(body, "status"))
        json_object_set_new(body, "status", json_string(ok ? "ok" : "unavailable"));
    return ts_http_json(req, ok ? 200 : 503, body);
}

/* Gathers a POST's body, up to max_body bytes (past that it is dropped
 * and the request answered 413). */
static void take_upload(ts_httpd_t *h, upload_t *u, const char *data, size_t n)
{
    if (u->too_large || u->len + n > h->opt.max_body) {
        u->too_large = true;
        return;
    }
    if (u->len + n + 1 > u->cap) {
        size_t cap = u->cap ? u->cap : 65536;
        while (cap < u->len + n + 1)
            cap *= 2;
        char *grown = realloc(u->data, cap);
        if (!grown) {
            u->too_large = true;
            return;
        }
        u->data = grown;
        u->cap = cap;
    }
    memcpy(u->data + u->len, data, n);
    u->len += n;
    u->data[u->len] = '\0';
}

static void on_completed(void *cls, struct MHD_Connection *c, void **state, enum MHD_RequestTerminationCode why)
{
    (void) c;
    (void) why;
    if (*state && *state != cls) {
        upload_t *u = *state;
        free(u->data);
        free(u);
    }
    *state = NULL;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *upload, size_t *upload_size, void **state)
{
    (void) version;
    ts_httpd_t *h = cls;
    bool post = strcmp(method, "POST") == 0;
    if (!*state) {           /* headers only so far: wait for the body (a POST's gathered, others' empty) */
        *state = post && h->opt.max_body ? calloc(1, sizeof(upload_t)) : h;
        return *state ? MHD_YES : MHD_NO;
    }
    if (*upload_size) {
        if (*state != h)
            take_upload(h, *state, upload, *upload_size);
        *upload_size = 0;
        return MHD_YES;
    }
    upload_t *u = *state != h ? *state : NULL;
    ts_http_req_t req = { .server = h, .conn = c, .method = method, .body = u && u->data ? u->data : (u ? "" : NULL),
                          .body_len = u ? u->len : 0 };
    if (u && u->too_large)
        return (enum MHD_Result) ts_http_error(&req, 413, "the body is too large");
    bool get = strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0;
    bool builtin = strcmp(url, "/metrics") == 0 || strcmp(url, "/healthz") == 0;
    if (!builtin && !h->opt.handler)
        return (enum MHD_Result) ts_http_not_found(&req);
    if (builtin && !get)
        return (enum MHD_Result) ts_http_error(&req, 405, "only GET");
    if (strcmp(url, "/healthz") == 0)
        return (enum MHD_Result) healthz(&req);
    if (!authorized(&req))
        return (enum MHD_Result) ts_http_error(&req, 401, "bearer token required");
    if (strcmp(url, "/metrics") == 0)
        return (enum MHD_Result) ts_http_text(&req, 200, "text/plain; version=0.0.4; charset=utf-8",
                                              ts_metrics_render(h->opt.metrics));
    return (enum MHD_Result) h->opt.handler(h->opt.arg, &req, url, get);
}

ts_httpd_t *ts_httpd_new(const ts_httpd_options_t *opt, char *err)
{
    struct sockaddr_storage addr;
    socklen_t len;
    if (ts_addr_parse(opt->listen, &addr, &len, err) < 0)
        return NULL;
    ts_httpd_t *h = calloc(1, sizeof *h);
    if (!h) {
        snprintf(err, TS_ERR_MAX, "out of memory");
        return NULL;
    }
    h->opt = *opt;
    for (size_t i = 0; i < NSTATUS && opt->requests_metric; i++) {
        char labels[32];
        snprintf(labels, sizeof labels, "code=\"%u\"", status_codes[i]);
        h->answers[i] = ts_metrics_counter(opt->metrics, opt->requests_metric, "HTTP answers by status code", labels);
    }
    h->token = opt->token ? strdup(opt->token) : NULL;
    if (opt->token && !h->token) {
        snprintf(err, TS_ERR_MAX, "out of memory");
        ts_httpd_destroy(&h);
        return NULL;
    }
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | (addr.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0);
    h->daemon = MHD_start_daemon(flags, 0, NULL, NULL, on_request, h, MHD_OPTION_SOCK_ADDR, (struct sockaddr *) &addr,
                                 MHD_OPTION_CONNECTION_LIMIT, opt->max_connections, MHD_OPTION_CONNECTION_TIMEOUT,
                                 (unsigned) 10, MHD_OPTION_NOTIFY_COMPLETED, on_completed, h, MHD_OPTION_END);
    if (!h->daemon) {
        snprintf(err, TS_ERR_MAX, "cannot serve %s on %s (address in use?)", opt->what, opt->listen);
        ts_httpd_destroy(&h);
    }
    return h;
}

void ts_httpd_destroy(ts_httpd_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    ts_httpd_t *h = *self_p;
    if (h->daemon)
        MHD_stop_daemon(h->daemon);
    free(h->token);
    free(h);
    *self_p = NULL;
}
