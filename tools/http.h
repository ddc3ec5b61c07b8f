/* tools/http.h - the smallest HTTP/1.1 client the tools need: one GET (or POST) per
 * connection ("Connection: close"), a whole answer read into memory, with
 * a deadline. Plain http:// only; the admin API is served on loopback or a
 * private network. */
#ifndef TOOLS_HTTP_H
#define TOOLS_HTTP_H

#include <stddef.h>

#include "err.h"   /* TS_ERR_MAX: the size of err */

typedef struct {
    int    status;   /* e.g. 200 */
    char  *body;     /* NUL-terminated, malloc'd */
    size_t len;
} ts_http_answer_t;

/* Splits "http://HOST:PORT[/prefix]" into host (at most 255 bytes), port
 * and path prefix (without a trailing slash). Returns 0, or -1 with a
 * reason in err. */
int ts_http_parse_url(const char *url, char *host, char *port, char *prefix, char *err);

/* GETs base_url + path, sending "Authorization: Bearer token" when token is
 * not NULL. Returns 0 with *answer filled (free it with ts_http_free), or
 * -1 with a reason in err (cannot connect, timeout, not HTTP). */
int ts_http_get(const char *base_url, const char *path, const char *token, int timeout_ms,
                ts_http_answer_t *answer, char *err);
/* The same as a POST of body (len bytes, sent as application/json). */
int ts_http_post(const char *base_url, const char *path, const char *token, const char *body, size_t len,
                 int timeout_ms, ts_http_answer_t *answer, char *err);
void ts_http_free(ts_http_answer_t *answer);

/* GETs base_url + path and writes a 200 answer's body to out, read as it
 * comes (a shard's whole database, say), timeout_ms being the most the
 * answer may stay silent rather than a deadline for all of it. Returns the
 * status (200: the body is in out, whole, as long as Content-Length said),
 * or -1 with a reason in err. For another status err gets the start of its
 * body (the JSON error). */
int ts_http_get_file(const char *base_url, const char *path, const char *token, int timeout_ms, int out, char *err);

#endif
