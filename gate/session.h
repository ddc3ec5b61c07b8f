/* gate/session.h - PROTOCOL.md's rules for one client session, with no
 * socket and no event loop: what the gate answers to each message a client
 * sends (HELLO and its token, SYNC, SYNC_ACK, BYE, anything else), to each
 * envelope a shard answers or could not be sent, and when a SYNC_RESULT's
 * deadline passes; which ERROR closes the session; the SYNC rate; the
 * exchanges in flight (gate/exchange.h).
 *
 * What the session does goes out through a port the gate implements
 * (gate_session_port_t): a message on the session's stream, a datagram, a
 * close, an envelope for the player's shard, the binding of a player to
 * this session. Every call of the port gets the port's ctx (the gate) and
 * the session's link (its connection), both opaque here. A test drives the
 * rules through a fake port (tests/test_session.c).
 *
 * Only the gate's event loop thread touches a session. */
#ifndef GATE_SESSION_H
#define GATE_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "envelope.h"
#include "exchange.h"
#include "msg.h"
#include "stats.h"
#include "udptag.h"

#define GATE_MAX_BAD   8         /* BAD_MESSAGEs a session is allowed before it is closed (PROTOCOL) */
#define GATE_RESULT_US 1000000   /* a SYNC_ACK whose SYNC_RESULT has not come this long: UNAVAILABLE */

typedef struct gate_session_t gate_session_t;

typedef enum {
    GATE_SESSION_NEW,       /* no WELCOME yet: only HELLO is taken */
    GATE_SESSION_WELCOMED,  /* HELLO accepted, player bound */
    GATE_SESSION_CLOSED,    /* last words said, or the stream is gone: every input is ignored */
} gate_session_state_t;

typedef struct {
    /* A message's encoded body (msg.h) on the session's stream, as a TCP
     * frame or a WebSocket message. 0, or -1 when the stream cannot take
     * it: the session then counts it stalled and drops itself (drop below). */
    int (*send)(void *ctx, void *link, const uint8_t *body, size_t len);
    /* seq's SYNC_REPLY on the stream, its t3 read as late as the transport
     * can (at the write that carries it), which also marks seq REPLIED in x
     * (gate_exchange_reply). 0 or -1 as send. */
    int (*send_sync_reply)(void *ctx, void *link, gate_exchange_t *x, uint64_t seq, int64_t t1, int64_t t2);
    /* A datagram for to; UDP may drop it. */
    void (*send_datagram)(void *ctx, const uint8_t *dgram, size_t len, const struct sockaddr_storage *to,
                          socklen_t to_len);
    /* The last words are said: close the stream once they are written. */
    void (*close)(void *ctx, void *link);
    /* The stream failed: retire it now (the gate then calls gate_session_end). */
    void (*drop)(void *ctx, void *link);
    /* Whether the player's shard (as bind named it) can be told of an
     * exchange now. */
    bool (*shard_ready)(void *ctx, int shard, int64_t now);
    /* An envelope for the player's shard: 0, or -1 when it could not be sent. */
    int (*forward)(void *ctx, int shard, const ts_env_t *env);
    /* seq of session id awaits its SYNC_RESULT until deadline
     * (gate_session_expire then). */
    void (*await)(void *ctx, uint64_t id, uint64_t seq, int64_t deadline);
    /* player_id is now on session s; returns the session it was on before,
     * or NULL, and the player's shard in *shard (once: a session keeps its
     * player). */
    gate_session_t *(*bind)(void *ctx, uint64_t player_id, gate_session_t *s, int *shard);
    void *ctx;
} gate_session_port_t;

typedef struct {
    const uint8_t *secret;            /* NULL: open mode, any token */
    size_t         secret_len;
    double         sync_rate;         /* SYNCs a second */
    uint64_t       sync_interval_ms;  /* advertised in WELCOME */
    bool           udp;               /* the gate serves UDP: WELCOME offers a udp_key */
    ts_decoder_t  *dec;               /* messages are decoded into it (shared, borrowed) */
    gate_stats_t  *stats;             /* counted here (borrowed) */
} gate_session_config_t;

/* A session for the stream link, under id (what WELCOME's session_id and
 * UDP datagrams name). datagrams: UDP may be offered on it (a browser's
 * WebSocket has none). config and port are borrowed and must outlive it.
 * NULL when out of memory. */
gate_session_t *gate_session_new(const gate_session_config_t *config, const gate_session_port_t *port, void *link,
                                 uint64_t id, bool datagrams, int64_t now);
void gate_session_destroy(gate_session_t **self_p);

uint64_t             gate_session_id(const gate_session_t *self);
gate_session_state_t gate_session_state(const gate_session_t *self);
uint64_t             gate_session_player(const gate_session_t *self);
void                *gate_session_link(const gate_session_t *self);

/* One frame's body from the stream, read at real time t2 and monotonic
 * now: decoded and answered. */
void gate_session_frame(gate_session_t *self, const uint8_t *body, size_t len, int64_t t2, int64_t now);
/* The stream's framing broke (BAD_FRAME or TOO_LARGE): ERROR with seq 0,
 * and the close rule. */
void gate_session_bad_frame(gate_session_t *self, ts_error_t code);
/* A SYNC or SYNC_ACK that came over UDP from `from`, already admitted
 * (gate_udp_admit): answered by datagram to from. */
void gate_session_datagram(gate_session_t *self, const ts_msg_t *msg, int64_t t2, int64_t now,
                           const struct sockaddr_storage *from, socklen_t from_len);
/* Whether the session is welcomed with a udp_key, and whether a
 * datagram's message and tag are its. */
bool gate_session_udp(const gate_session_t *self);
bool gate_session_udp_check(const gate_session_t *self, const uint8_t *msg, size_t len, const uint8_t *tag);

/* The player's shard came up (its bit is set in shards, shard i as bit
 * i): a welcomed session tells it, with HELD, that the gate still holds
 * it, since the shard may have missed its OPEN. */
void gate_session_held(gate_session_t *self, uint64_t shards);
/* The shard's SYNC_RESULT for env->seq: to the client the way its ACK
 * came. False when none is due (answered UNAVAILABLE already): late. */
bool gate_session_result(gate_session_t *self, const ts_env_t *env);
/* The shard did not take env: a SYNC_ACK's result will not come, so it is
 * answered UNAVAILABLE now. */
void gate_session_unsent(gate_session_t *self, const ts_env_t *env);
/* seq's SYNC_RESULT has not come by deadline: UNAVAILABLE, if seq still
 * awaits with that deadline. */
void gate_session_expire(gate_session_t *self, uint64_t seq, int64_t deadline);

/* Closes the session without a word (its transport ends the stream). */
void gate_session_close(gate_session_t *self);
/* BYE with reason, then close (replaced, shutdown). */
void gate_session_bye(gate_session_t *self, const char *reason);
/* The stream is gone: the shard is told (CLOSE) if a player was bound.
 * Calling it again does nothing. */
void gate_session_end(gate_session_t *self);

#endif
