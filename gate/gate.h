/* gate/gate.h - the gate: one event loop that owns every client socket,
 * speaks PROTOCOL.md to clients and the envelope to scene shards. */
#ifndef GATE_GATE_H
#define GATE_GATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "err.h"
#include "log.h"
#include "metrics.h"

typedef struct {
    struct sockaddr_storage listen;
    socklen_t               listen_len;
    const char             *scenes;            /* comma-separated endpoints */
    const char             *curve_scene_certs; /* CurveZMQ: the shards' public certificates, or NULL: off */
    const char             *curve_cert;        /* CurveZMQ: this gate's secret certificate, or NULL: fresh keys */
    const uint8_t          *secret;            /* NULL: open mode */
    size_t                  secret_len;
    double                  sync_rate;         /* SYNC per second per connection */
    uint64_t                sync_interval_ms;  /* advertised in WELCOME */
    size_t                  out_cap;           /* bytes queued per connection */
    int64_t                 batch_us;          /* how long envelopes for a shard may wait for company */
    bool                    udp;               /* also serve UDP on the listen port */
    bool                    ws;                /* also serve WebSocket clients on ws_listen */
    struct sockaddr_storage ws_listen;
    socklen_t               ws_listen_len;
    const char             *ws_origins;        /* allowed Origins, comma-separated; NULL or "*": any */
} gate_options_t;

typedef struct gate_t gate_t;

/* Opens the listener and the shard sockets. Returns NULL with a reason in
  * err (TS_ERR_MAX bytes). log and metrics are borrowed and must outlive the gate. */
gate_t *gate_new(const gate_options_t *options, ts_log_t *log, ts_metrics_t *metrics, char *err);
void gate_destroy(gate_t **self_p);

/* Serves until SIGTERM or SIGINT (which the caller must have blocked), then
 * sends BYE "shutdown" to every client, drains and returns 0. */
int gate_run(gate_t *self);

/* Shards answering PINGs now (for /healthz). Thread-safe. */
int gate_reachable_shards(const gate_t *self);
/* Shards up whose store is failing (their PONGs say so), and which of
 * shards 0-63 they are (bit i); any thread. */
int gate_degraded_shards(const gate_t *self, uint64_t *first64);

#endif
