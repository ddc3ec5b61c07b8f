/* gate/shards.h - the gate's ZeroMQ side: one DEALER per scene shard (in
 * --scenes order), routing by player id, and liveness by PING/PONG.
 *
 * A shard is up while it has answered a PING within GATE_SHARD_DEAD_US.
 * Sends never block: with ZMQ_IMMEDIATE a shard with no live connection
 * refuses at once, which the gate answers with UNAVAILABLE. */
#ifndef GATE_SHARDS_H
#define GATE_SHARDS_H

#include <stdbool.h>
#include <stdint.h>

#include "envelope.h"
#include "log.h"

#define GATE_SHARD_PING_US  200000   /* PING every 200 ms */
#define GATE_SHARD_DEAD_US  800000   /* no PONG for 800 ms: down */

typedef struct gate_shards_t gate_shards_t;

/* CurveZMQ towards the shards (czmq zcert files, from ticksync-admin keygen). */
typedef struct {
    const char *scene_certs;  /* the shards' public certificates: one for all, or one per shard, comma-separated */
    const char *gate_cert;    /* this gate's secret certificate, or NULL: a fresh key pair at each start */
} gate_curve_t;

/* endpoints: comma-separated ZeroMQ endpoints; curve NULL: no encryption.
 * Returns NULL with a reason in err (256 bytes) for a bad list or an
 * unreadable certificate. log may be NULL. */
gate_shards_t *gate_shards_new(const char *endpoints, const gate_curve_t *curve, ts_log_t *log, int64_t now_us,
                               char *err);
void gate_shards_destroy(gate_shards_t **self_p);

int gate_shards_count(const gate_shards_t *self);
/* The shard of a player (jump consistent hash over the shard count). */
int gate_shards_route(const gate_shards_t *self, uint64_t player_id);
/* ZMQ_FD of shard i, to poll for readability in the gate's epoll. */
int gate_shards_fd(const gate_shards_t *self, int i);
bool gate_shards_up(const gate_shards_t *self, int i, int64_t now_us);
int gate_shards_up_count(const gate_shards_t *self, int64_t now_us);

/* Returns 0 when queued for shard i, -1 when it cannot take it now. */
int gate_shards_send(gate_shards_t *self, int i, const ts_env_t *env);
/* Returns 1 with *env filled, 0 when nothing is waiting, -1 for a message
 * that is not an envelope (dropped). PONGs are consumed here. */
int gate_shards_recv(gate_shards_t *self, int i, ts_env_t *env, int64_t now_us);
/* Sends due PINGs and logs shards going up or down. */
void gate_shards_tick(gate_shards_t *self, int64_t now_us);

#endif
