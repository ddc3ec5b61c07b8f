/* gate/httpd.c - see httpd.h. */
#include "httpd.h"

#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addr.h"

struct gate_httpd_t {
    struct MHD_Daemon *daemon;
    const gate_t      *gate;
    ts_metrics_t      *metrics;
};

static enum MHD_Result send_text(struct MHD_Connection *c, unsigned status, const char *type, char *body)
{
    if (!body)
        return MHD_NO;
    struct MHD_Response *r = MHD_create_response_from_buffer(strlen(body), body, MHD_RESPMEM_MUST_FREE);
    if (!r) {
        free(body);
        return MHD_NO;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    enum MHD_Result rc = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return rc;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *upload, size_t *upload_size, void **state)
{
    (void) version;
    (void) upload;
    gate_httpd_t *h = cls;
    if (!*state) {
        *state = h;
        return MHD_YES;
    }
    *upload_size = 0;
    bool get = strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0;
    if (strcmp(url, "/metrics") == 0 && get)
        return send_text(c, 200, "text/plain; version=0.0.4; charset=utf-8", ts_metrics_render(h->metrics));
    if (strcmp(url, "/healthz") == 0 && get) {
        int up = gate_shards_reachable(h->gate);
        char *body = malloc(64);
        if (body)
            snprintf(body, 64, "{\"status\":\"%s\",\"shards_up\":%d}\n", up > 0 ? "ok" : "no shard", up);
        return send_text(c, up > 0 ? 200 : 503, "application/json", body);
    }
    bool known = strcmp(url, "/metrics") == 0 || strcmp(url, "/healthz") == 0;
    return send_text(c, known ? 405 : 404, "application/json",
                     strdup(known ? "{\"error\":\"only GET\"}\n" : "{\"error\":\"no such path\"}\n"));
}

gate_httpd_t *gate_httpd_new(const char *listen, const gate_t *gate, ts_metrics_t *metrics, char *err)
{
    struct sockaddr_storage addr;
    socklen_t len;
    if (ts_addr_parse(listen, &addr, &len, err) < 0)
        return NULL;
    gate_httpd_t *h = calloc(1, sizeof *h);
    if (!h) {
        snprintf(err, 256, "out of memory");
        return NULL;
    }
    h->gate = gate;
    h->metrics = metrics;
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | (addr.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0);
    h->daemon = MHD_start_daemon(flags, 0, NULL, NULL, on_request, h, MHD_OPTION_SOCK_ADDR, (struct sockaddr *) &addr,
                                 MHD_OPTION_CONNECTION_LIMIT, (unsigned) 64, MHD_OPTION_CONNECTION_TIMEOUT,
                                 (unsigned) 10, MHD_OPTION_END);
    if (!h->daemon) {
        snprintf(err, 256, "cannot serve HTTP on %s (address in use?)", listen);
        free(h);
        return NULL;
    }
    return h;
}

void gate_httpd_destroy(gate_httpd_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    MHD_stop_daemon((*self_p)->daemon);
    free(*self_p);
    *self_p = NULL;
}
