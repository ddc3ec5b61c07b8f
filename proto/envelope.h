/* proto/envelope.h - the gate <-> scene envelope carried over ZeroMQ.
 * proto/README.md describes the frames, the fields and who stamps what. */
#ifndef TS_PROTO_ENVELOPE_H
#define TS_PROTO_ENVELOPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "decoder.h"

#define TS_ENV_MAX 128           /* no envelope encodes longer */
#define TS_ENV_BATCH_MAX 65536   /* no frame of envelopes is longer */
#define TS_ENV_REPLY_MAX 64      /* no SYNC_RESULT's reply is longer (one encodes to at most 46) */

typedef enum {
    TS_ENV_PING        = 1,   /* gate -> scene: are you there? seq is a nonce */
    TS_ENV_PONG        = 2,   /* scene -> gate: the PING's nonce back */
    TS_ENV_OPEN        = 3,   /* gate -> scene: conn welcomed for player_id */
    TS_ENV_CLOSE       = 4,   /* gate -> scene: conn of player_id has gone */
    TS_ENV_KICK        = 5,   /* scene -> gate: player_id logged in elsewhere */
    TS_ENV_HELD        = 6,   /* gate -> scene: conn still holds player_id (after the shard came up) */
    TS_ENV_SYNC        = 16,  /* gate -> scene: t1 (client), t2 (gate, real); the gate has answered it */
    TS_ENV_SYNC_ACK    = 18,  /* gate -> scene: t4, t5 (client), t6-t3 (gate, monotonic) */
    TS_ENV_SYNC_RESULT = 19,  /* scene -> gate: the client's SYNC_RESULT, encoded */
} ts_env_kind_t;

typedef struct {
    uint64_t kind;       /* ts_env_kind_t */
    uint64_t conn;       /* the gate's connection id, echoed in replies */
    uint64_t player_id;  /* bound at HELLO by the gate, never the client's say */
    uint64_t seq;        /* the client's seq (a nonce for PING/PONG) */
    int64_t  t1, t2;
    int64_t  t4, t5, t6_t3;
    bool     has_client_rtt, has_client_offset;
    int64_t  client_rtt, client_offset;
    /* SYNC_RESULT: the client's message (msg.h), encoded by the scene and
     * passed on by the gate as it is. Decoded, it points into the buffer
     * decoded, and lives as long as that. */
    const uint8_t *reply;
    size_t         reply_len;   /* 1 to TS_ENV_REPLY_MAX */
    uint64_t flags;      /* PONG: TS_ENV_DEGRADED and the like (absent on the wire: 0) */
} ts_env_t;

#define TS_ENV_DEGRADED 1u   /* PONG: the shard answers but cannot write its store */

/* Returns the encoded length, or 0 when buf is too small or the kind unknown. */
size_t ts_env_encode(const ts_env_t *env, uint8_t *buf, size_t cap);

/* Returns 0, or -1 for anything that is not one well-formed envelope. */
int ts_env_decode(const uint8_t *buf, size_t len, ts_env_t *out);

/* A frame between gate and scene is a batch: one or more envelopes back to
 * back, at most TS_ENV_BATCH_MAX bytes (a lone envelope is a batch of one).
 *
 * append encodes env at buf[*len..cap) and moves *len past it; false, with
 * nothing written, when it does not fit (send the batch, start another).
 * next decodes the envelope at buf[*off..len) and moves *off past it:
 * 1 with *out filled, 0 at the end of the frame, -1 for bytes that are not
 * a well-formed envelope (the rest of the frame cannot be trusted then). */
bool ts_env_append(uint8_t *buf, size_t cap, size_t *len, const ts_env_t *env);
int  ts_env_next(ts_decoder_t *dec, const uint8_t *buf, size_t len, size_t *off, ts_env_t *out);

#endif
