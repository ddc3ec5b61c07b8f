/* gate/httpd.h - the gate's HTTP endpoint: GET /metrics (Prometheus text)
 * and GET /healthz (200 while at least one scene shard answers PINGs,
 * 503 otherwise). libmicrohttpd serves it on a thread of its own. */
#ifndef GATE_HTTPD_H
#define GATE_HTTPD_H

#include "gate.h"
#include "metrics.h"

typedef struct gate_httpd_t gate_httpd_t;

/* listen is HOST:PORT. gate and metrics are borrowed and must outlive it.
 * Returns NULL with a reason in err (256 bytes). */
gate_httpd_t *gate_httpd_new(const char *listen, const gate_t *gate, ts_metrics_t *metrics, char *err);
void gate_httpd_destroy(gate_httpd_t **self_p);

#endif
