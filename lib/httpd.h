/* lib/httpd.h - the servers' HTTP endpoint: libmicrohttpd on a thread of
 * its own, with what every ticksync process serves built in:
 *
 *   GET /metrics   the registry in Prometheus text
 *   GET /healthz   200 {"status":"ok", ...} while health() says so, else 503
 *
 * and every other path handed to the owner's handler (the scene's admin
 * API). Each answer is counted by status code under requests_metric. With
 * a token, /metrics and the handler's paths need "Authorization: Bearer
 * <token>" (401 otherwise); /healthz stays open for probes. Unknown paths
 * are 404 and methods other than GET and HEAD 405, as JSON errors; a POST
 * to the handler's paths comes with its body when max_body allows one. */
#ifndef TS_LIB_HTTPD_H
#define TS_LIB_HTTPD_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "metrics.h"

typedef struct ts_httpd_t ts_httpd_t;
typedef struct ts_http_req_t ts_http_req_t;   /* one request, valid during the handler's call */

/* Fills body (a JSON object; "status" may be set, else it is "ok" or
 * "unavailable") and returns whether the process can serve. Called on the
 * HTTP thread. */
typedef bool (ts_httpd_health_fn)(void *arg, json_t *body);
/* Answers a request for path (neither /metrics nor /healthz) through the
 * ts_http_* calls below and returns what the one it made returned; get is
 * false for a method other than GET or HEAD. Returns
 * ts_http_not_found(req) for a path it does not serve. */
typedef int (ts_httpd_handler_fn)(void *arg, ts_http_req_t *req, const char *path, bool get);

typedef struct {
    const char          *listen;           /* HOST:PORT */
    const char          *what;             /* for err: "admin HTTP", "metrics HTTP" */
    ts_metrics_t        *metrics;          /* rendered at /metrics; borrowed */
    const char          *requests_metric;  /* counter of answers, labelled code="200" ...; NULL: not
                                              counted (a TS_METRICS_ONE_WRITER registry must not
                                              be written from this thread) */
    const char          *token;            /* bearer token, or NULL: none (copied) */
    unsigned             max_connections;
    ts_httpd_health_fn  *health;
    ts_httpd_handler_fn *handler;          /* NULL: only /metrics and /healthz */
    void                *arg;              /* for health and handler; must outlive the server */
    size_t               max_body;         /* the largest POST body taken (0: none; bigger: 413) */
} ts_httpd_options_t;

/* Starts serving. Returns NULL with a reason in err (TS_ERR_MAX bytes). */
ts_httpd_t *ts_httpd_new(const ts_httpd_options_t *options, char *err);
/* Stops the thread, waiting for a request in progress. */
void ts_httpd_destroy(ts_httpd_t **self_p);

/* Answers for a handler. Each returns the value the handler returns. */
int ts_http_text(ts_http_req_t *req, unsigned status, const char *type, char *body);  /* body malloc'd, taken */
int ts_http_json(ts_http_req_t *req, unsigned status, json_t *value);                 /* value taken */
int ts_http_error(ts_http_req_t *req, unsigned status, const char *why);              /* {"error": why} */
/* size bytes read from fd from its offset 0, which is taken (closed once sent) */
int ts_http_file(ts_http_req_t *req, unsigned status, const char *type, int fd, uint64_t size);
int ts_http_not_found(ts_http_req_t *req);
/* "GET", "HEAD", "POST", ... */
const char *ts_http_method(const ts_http_req_t *req);
/* A POST's body (NUL-terminated; *len bytes, without the NUL), or NULL for
 * a request that has none. */
const char *ts_http_body(const ts_http_req_t *req, size_t *len);
/* A query argument, or NULL. */
const char *ts_http_arg(ts_http_req_t *req, const char *key);

#endif
