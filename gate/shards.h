/* gate/shards.h - the gate's ZeroMQ side: one DEALER per scene shard (in
 * --scenes order), routing by player id, and liveness by PING/PONG.
 *
 * A shard is up while it has answered a PING within GATE_SHARD_DEAD_US.
 *
 * Envelopes travel in batches (proto/envelope.h): send appends to the
 * shard's batch, and flush sends each batch that has lingered long enough
 * (set_linger: how long after its first envelope; 0, at the next flush) as
 * one ZeroMQ message, and a batch that fills leaves at once. So the gate
 * pays ZeroMQ's cost and the scene's wake-ups per batch, not per message,
 * even when messages come one by one; nothing the client waits on for its
 * time is in a batch (the gate answers SYNC itself). Sends never block: with
 * ZMQ_IMMEDIATE a shard with no live connection refuses at once, and flush
 * hands back each envelope of a batch that could not go, which the gate
 * answers with UNAVAILABLE. */
#ifndef GATE_SHARDS_H
#define GATE_SHARDS_H

#include <stdbool.h>
#include <stdint.h>

#include "envelope.h"
#include "err.h"
#include "log.h"

#define GATE_SHARD_PING_US  200000   /* PING every 200 ms */
#define GATE_SHARD_DEAD_US  800000   /* no PONG for 800 ms: down */
#define GATE_SHARD_RETRY_US 2000     /* a batch the shard refused, queued again, waits this long */

typedef struct gate_shards_t gate_shards_t;

/* CurveZMQ towards the shards (czmq zcert files, from ticksync-admin keygen). */
typedef struct {
    const char *scene_certs;  /* the shards' public certificates: one for all, or one per shard, comma-separated */
    const char *gate_cert;    /* this gate's secret certificate, or NULL: a fresh key pair at each start */
} gate_curve_t;

/* endpoints: comma-separated ZeroMQ endpoints; curve NULL: no encryption.
 * Returns NULL with a reason in err (TS_ERR_MAX bytes) for a bad list or an
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
/* Whether shard i would take a batch now: ZeroMQ has a live connection to
 * it (ZMQ_IMMEDIATE) with room in its queue. Asked of ZeroMQ once between
 * flushes, so a busy turn pays for it once; it can take the ZMQ_FD's
 * readiness, as a send can, so read replies after it. */
bool gate_shards_taking(gate_shards_t *self, int i);
int gate_shards_up_count(const gate_shards_t *self, int64_t now_us);
/* Shards up whose last PONG said they cannot write their store (they
 * answer, and measure, but their rows wait in their memory), and which of
 * shards 0-63 they are (bit i of *first64). */
int gate_shards_degraded_count(const gate_shards_t *self, int64_t now_us, uint64_t *first64);

/* Called for each envelope of a batch that a shard did not take; it may
 * send again (into a fresh batch). */
typedef void (gate_shards_unsent_fn)(void *arg, const ts_env_t *env);
/* Who hears of unsent envelopes (by default nobody: they are dropped). */
void gate_shards_on_unsent(gate_shards_t *self, gate_shards_unsent_fn *fn, void *arg);

/* How long a batch may wait for more envelopes, in µs (default 0). */
void gate_shards_set_linger(gate_shards_t *self, int64_t linger_us);
/* Appends env to shard i's batch, sending the batch first when full.
 * Returns 0, or -1 when env cannot be encoded. */
int gate_shards_send(gate_shards_t *self, int i, const ts_env_t *env);
/* Sends every batch due by now_us (INT64_MAX: every batch). Returns how
 * many envelopes could not be sent (each was handed to the unsent
 * callback). */
size_t gate_shards_flush(gate_shards_t *self, int64_t now_us);
/* When the earliest waiting batch is due (monotonic µs), INT64_MAX: none. */
int64_t gate_shards_due(const gate_shards_t *self);
/* The next envelope from shard i: 1 with *env filled, 0 when nothing is
 * waiting, -1 for bytes that are not an envelope (the rest of their
 * message is dropped). PONGs are consumed here. A SYNC_RESULT's reply
 * points into the message received: it lives until the next call for i. */
int gate_shards_recv(gate_shards_t *self, int i, ts_env_t *env, int64_t now_us);
/* Sends due PINGs and logs shards going up or down; returns the shards
 * that came up since the last tick, shard i as bit i (the first 64). */
uint64_t gate_shards_tick(gate_shards_t *self, int64_t now_us);

#endif
