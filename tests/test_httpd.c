/* tests/test_httpd.c - the servers' HTTP endpoint (lib/httpd): /metrics and
 * /healthz built in, the owner's handler for the rest, the bearer token,
 * 404 and 405, answers counted by status, and a file streamed whole to
 * the tools' ts_http_get_file. A real libmicrohttpd server
 * on a loopback port, asked with the tools' client and a raw socket. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "err.h"
#include "freeport.h"
#include "http.h"
#include "httpd.h"

#define FILE_SIZE 300000

typedef struct {
    bool healthy;
    char last_path[64];
    bool last_get;
} owner_t;

static bool health(void *arg, json_t *body)
{
    owner_t *o = arg;
    json_object_set_new(body, "shards_up", json_integer(o->healthy ? 2 : 0));
    return o->healthy;
}

static int handler(void *arg, ts_http_req_t *req, const char *path, bool get)
{
    owner_t *o = arg;
    snprintf(o->last_path, sizeof o->last_path, "%s", path);
    o->last_get = get;
    if (strcmp(path, "/v1/file") == 0) {   /* FILE_SIZE bytes of a known pattern */
        FILE *f = tmpfile();
        for (int i = 0; i < FILE_SIZE; i++)
            fputc((i * 7 + i / 251) & 0xff, f);
        fflush(f);
        int fd = dup(fileno(f));
        fclose(f);
        return ts_http_file(req, 200, "application/octet-stream", fd, FILE_SIZE);
    }
    if (strcmp(path, "/v1/body") == 0) {   /* a POST's body, echoed with its method and length */
        size_t len = 0;
        const char *body = ts_http_body(req, &len);
        return ts_http_json(req, 200, json_pack("{s:s,s:I,s:s}", "method", ts_http_method(req), "len", (json_int_t) len,
                                                "body", body ? body : "(none)"));
    }
    if (strcmp(path, "/v1/echo") != 0)
        return ts_http_not_found(req);
    const char *say = ts_http_arg(req, "say");
    return ts_http_json(req, 200, json_pack("{s:s}", "said", say ? say : ""));
}

static int port_base(void)
{
    static int base;
    if (!base)
        base = test_free_ports(21000, 4000, 2);
    return base;
}

static ts_httpd_t *start(ts_metrics_t *m, owner_t *o, const char *token, bool with_handler, char url[64])
{
    char listen[32], err[TS_ERR_MAX];
    int port = port_base() + (with_handler ? 1 : 0);
    snprintf(listen, sizeof listen, "127.0.0.1:%d", port);
    snprintf(url, 64, "http://127.0.0.1:%d", port);
    ts_httpd_options_t opt = { .listen = listen, .what = "test HTTP", .metrics = m,
                               .requests_metric = "test_requests_total", .token = token, .max_connections = 8,
                               .health = health, .handler = with_handler ? handler : NULL, .arg = o,
                               .max_body = 100000 };
    ts_httpd_t *h = ts_httpd_new(&opt, err);
    cr_assert_not_null(h, "%s", err);
    return h;
}

static int get(const char *url, const char *path, const char *token, char **body)
{
    ts_http_answer_t a;
    char err[TS_ERR_MAX];
    cr_assert_eq(ts_http_get(url, path, token, 2000, &a, err), 0, "%s", err);
    *body = a.body;
    return a.status;
}

/* The status of one raw request line (for methods the client does not send). */
static int raw_status(const char *url, const char *method, const char *path)
{
    int port = atoi(strrchr(url, ':') + 1);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t) port) };
    inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
    cr_assert_eq(connect(fd, (struct sockaddr *) &sa, sizeof sa), 0);
    char req[256], ans[512] = { 0 };
    int n = snprintf(req, sizeof req, "%s %s HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                     method, path);
    cr_assert_eq(write(fd, req, (size_t) n), n);
    size_t got = 0;
    for (ssize_t r; got < sizeof ans - 1 && (r = read(fd, ans + got, sizeof ans - 1 - got)) > 0;)
        got += (size_t) r;
    close(fd);
    int status = 0;
    cr_assert_eq(sscanf(ans, "HTTP/1.1 %d", &status), 1, "%s", ans);
    return status;
}

Test(httpd, serves_metrics_and_healthz_and_counts_answers)
{
    ts_metrics_t *m = ts_metrics_new(TS_METRICS_ANY_WRITER);
    ts_metric_add(ts_metrics_counter(m, "test_things_total", "things", NULL), 7);
    owner_t o = { .healthy = true };
    char url[64], *body;
    ts_httpd_t *h = start(m, &o, NULL, false, url);
    cr_assert_eq(get(url, "/metrics", NULL, &body), 200);
    cr_assert(strstr(body, "test_things_total 7"), "%s", body);
    free(body);
    cr_assert_eq(get(url, "/healthz", NULL, &body), 200);
    cr_assert(strstr(body, "\"status\":\"ok\"") && strstr(body, "\"shards_up\":2"), "%s", body);
    free(body);
    o.healthy = false;
    cr_assert_eq(get(url, "/healthz", NULL, &body), 503);
    cr_assert(strstr(body, "\"status\":\"unavailable\""), "%s", body);
    free(body);
    cr_assert_eq(get(url, "/v1/anything", NULL, &body), 404, "no handler: only the two built-in paths");
    free(body);
    cr_assert_eq(raw_status(url, "POST", "/metrics"), 405);
    cr_assert_eq(get(url, "/metrics", NULL, &body), 200);
    /* two 200s before this one, which is counted once it is rendered */
    cr_assert(strstr(body, "test_requests_total{code=\"200\"} 2"), "%s", body);
    cr_assert(strstr(body, "test_requests_total{code=\"503\"} 1"), "%s", body);
    cr_assert(strstr(body, "test_requests_total{code=\"404\"} 1"), "%s", body);
    cr_assert(strstr(body, "test_requests_total{code=\"405\"} 1"), "%s", body);
    free(body);
    ts_httpd_destroy(&h);
    ts_httpd_destroy(&h);   /* idempotent */
    cr_assert_null(h);
    ts_metrics_destroy(&m);
}

Test(httpd, hands_other_paths_to_the_handler_behind_the_token)
{
    ts_metrics_t *m = ts_metrics_new(TS_METRICS_ANY_WRITER);
    owner_t o = { .healthy = true };
    char url[64], *body;
    ts_httpd_t *h = start(m, &o, "s3cret", true, url);
    cr_assert_eq(get(url, "/v1/echo?say=hi", NULL, &body), 401, "no token");
    free(body);
    cr_assert_eq(get(url, "/v1/echo?say=hi", "wrong!", &body), 401, "a wrong token of the same length");
    free(body);
    cr_assert_eq(get(url, "/metrics", NULL, &body), 401);
    free(body);
    cr_assert_eq(get(url, "/healthz", NULL, &body), 200, "probes need no token");
    free(body);
    cr_assert_eq(get(url, "/v1/echo?say=hi", "s3cret", &body), 200);
    cr_assert_str_eq(body, "{\"said\":\"hi\"}\n");
    free(body);
    cr_assert_str_eq(o.last_path, "/v1/echo");
    cr_assert(o.last_get);
    cr_assert_eq(get(url, "/v1/nothing", "s3cret", &body), 404);
    cr_assert(strstr(body, "\"error\""), "%s", body);
    free(body);
    ts_httpd_destroy(&h);
    ts_metrics_destroy(&m);
}

Test(httpd, streams_a_file_to_a_file_whole_and_says_why_not)
{
    ts_metrics_t *m = ts_metrics_new(TS_METRICS_ANY_WRITER);
    owner_t o = { .healthy = true };
    char url[64], err[TS_ERR_MAX];
    ts_httpd_t *h = start(m, &o, "s3cret", true, url);
    FILE *out = tmpfile();
    cr_assert_eq(ts_http_get_file(url, "/v1/file", "s3cret", 2000, fileno(out), err), 200, "%s", err);
    fseek(out, 0, SEEK_END);   /* written through its descriptor */
    cr_assert_eq(ftell(out), FILE_SIZE);
    rewind(out);
    for (int i = 0, c; i < FILE_SIZE; i++)
        if ((c = fgetc(out)) != ((i * 7 + i / 251) & 0xff))
            cr_assert_fail("byte %d is %d", i, c);
    fclose(out);
    out = tmpfile();
    cr_assert_eq(ts_http_get_file(url, "/v1/nothing", "s3cret", 2000, fileno(out), err), 404);
    cr_assert(strstr(err, "no such path"), "the error's JSON: %s", err);
    cr_assert_eq(ts_http_get_file(url, "/v1/file", NULL, 2000, fileno(out), err), 401);
    fseek(out, 0, SEEK_END);
    cr_assert_eq(ftell(out), 0, "nothing written for an answer other than 200");
    fclose(out);
    cr_assert_eq(ts_http_get_file("http://127.0.0.1:1", "/v1/file", NULL, 500, 1, err), -1);
    cr_assert(strstr(err, "cannot connect"), "%s", err);
    ts_httpd_destroy(&h);
    ts_metrics_destroy(&m);
}

Test(httpd, a_taken_address_is_a_clear_error)
{
    ts_metrics_t *m = ts_metrics_new(TS_METRICS_ANY_WRITER);
    owner_t o = { .healthy = true };
    char url[64], err[TS_ERR_MAX];
    ts_httpd_t *h = start(m, &o, NULL, false, url);
    char listen[32];
    snprintf(listen, sizeof listen, "127.0.0.1:%d", port_base());
    ts_httpd_options_t opt = { .listen = listen, .what = "test HTTP", .metrics = m, .max_connections = 8 };
    cr_assert_null(ts_httpd_new(&opt, err));
    cr_assert(strstr(err, "cannot serve test HTTP on 127.0.0.1:"), "%s", err);
    ts_httpd_destroy(&h);
    ts_metrics_destroy(&m);
}

Test(httpd, a_post_comes_with_its_body_and_one_too_large_is_413)
{
    ts_metrics_t *m = ts_metrics_new(TS_METRICS_ANY_WRITER);
    owner_t o = { .healthy = true };
    char url[64], err[TS_ERR_MAX];
    ts_httpd_t *h = start(m, &o, NULL, true, url);
    ts_http_answer_t a;
    cr_assert_eq(ts_http_post(url, "/v1/body", NULL, "{\"a\": 1}", 8, 2000, &a, err), 0, "%s", err);
    cr_assert_eq(a.status, 200, "%s", a.body);
    json_t *v = json_loads(a.body, 0, NULL);
    cr_assert_str_eq(json_string_value(json_object_get(v, "method")), "POST");
    cr_assert_eq(json_integer_value(json_object_get(v, "len")), 8);
    cr_assert_str_eq(json_string_value(json_object_get(v, "body")), "{\"a\": 1}");
    cr_assert_not(o.last_get);
    json_decref(v);
    ts_http_free(&a);
    /* a body over max_body (sent in many pieces) */
    size_t big = 300000;
    char *body = malloc(big);
    memset(body, 'x', big);
    cr_assert_eq(ts_http_post(url, "/v1/body", NULL, body, big, 5000, &a, err), 0, "%s", err);
    cr_assert_eq(a.status, 413, "%s", a.body);
    ts_http_free(&a);
    free(body);
    /* a GET has none */
    cr_assert_eq(ts_http_get(url, "/v1/body", NULL, 2000, &a, err), 0, "%s", err);
    cr_assert(strstr(a.body, "\"(none)\""), "%s", a.body);
    ts_http_free(&a);
    ts_httpd_destroy(&h);
    ts_metrics_destroy(&m);
}
