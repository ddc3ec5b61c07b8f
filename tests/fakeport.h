/* tests/fakeport.h - a gate_session_port_t that records what sessions do:
 * the messages each stream is sent (decoded back), datagrams (unwrapped and
 * decoded), closes, drops, envelopes for the shards, the SYNC_RESULTs
 * awaited, and which session each player is bound to. A link is a
 * fake_link_t, one a session. Nothing here opens a socket. */
#ifndef TESTS_FAKEPORT_H
#define TESTS_FAKEPORT_H

#include <criterion/criterion.h>
#include <string.h>

#include "clock.h"
#include "datagram.h"
#include "metrics.h"
#include "session.h"

#define FAKE_MAX 64

typedef struct {
    ts_msg_t sent[FAKE_MAX];   /* on the stream, in order */
    int      nsent;
    bool     closed, dropped;
    bool     refuse_writes;    /* the stream cannot take anything */
} fake_link_t;

typedef struct {
    gate_session_port_t     port;
    ts_env_t                fwd[FAKE_MAX];   /* envelopes for the shards, in order */
    int                     nfwd;
    bool                    shard_down, forward_fails;
    ts_msg_t                dgrams[FAKE_MAX];
    uint64_t                dgram_session[FAKE_MAX];
    struct sockaddr_storage dgram_to[FAKE_MAX];
    int                     ndgrams;
    uint64_t                await_id, await_seq;
    int64_t                 await_deadline;
    int                     nawait;
    uint64_t                players[8];
    gate_session_t         *bound[8];
} fake_port_t;

static int fake_send(void *ctx, void *link, const uint8_t *body, size_t len)
{
    (void) ctx;
    fake_link_t *l = link;
    if (l->refuse_writes)
        return -1;
    cr_assert_lt(l->nsent, FAKE_MAX);
    cr_assert_eq(ts_msg_decode(body, len, TS_FROM_SERVER, &l->sent[l->nsent]), TS_OK, "what a client would read");
    l->nsent++;
    return 0;
}

static int fake_send_sync_reply(void *ctx, void *link, gate_exchange_t *x, uint64_t seq, int64_t t1, int64_t t2)
{
    gate_exchange_reply(x, seq, false);
    ts_msg_t m = { .type = TS_SYNC_REPLY, .seq = seq };
    m.u.sync_reply = (ts_sync_reply_t) { t1, t2, ts_clock_real_us() };
    uint8_t body[TS_ENV_MAX];
    return fake_send(ctx, link, body, ts_msg_encode(&m, body, sizeof body));
}

/* A shard's SYNC_RESULT for conn's player, its reply encoded into body as
 * the scene does. */
static inline ts_env_t fake_result(uint64_t conn, uint64_t player_id, uint64_t seq, ts_sync_result_t r,
                            uint8_t body[TS_ENV_REPLY_MAX])
{
    ts_msg_t m = { .type = TS_SYNC_RESULT, .seq = seq, .u.sync_result = r };
    size_t n = ts_msg_encode(&m, body, TS_ENV_REPLY_MAX);
    cr_assert_gt(n, 0);
    return (ts_env_t) { .kind = TS_ENV_SYNC_RESULT, .conn = conn, .player_id = player_id, .seq = seq,
                        .reply = body, .reply_len = n };
}

static void fake_send_datagram(void *ctx, const uint8_t *dgram, size_t len, const struct sockaddr_storage *to,
                               socklen_t to_len)
{
    fake_port_t *f = ctx;
    cr_assert_lt(f->ndgrams, FAKE_MAX);
    cr_assert_gt(to_len, 0);
    ts_dgram_t d;
    cr_assert_eq(ts_dgram_parse(dgram, len, &d), 0);
    cr_assert_eq(ts_msg_decode(d.msg, d.msg_len, TS_FROM_SERVER, &f->dgrams[f->ndgrams]), TS_OK);
    f->dgram_session[f->ndgrams] = d.session_id;
    f->dgram_to[f->ndgrams++] = *to;
}

static void fake_close(void *ctx, void *link)
{
    (void) ctx;
    ((fake_link_t *) link)->closed = true;
}

static void fake_drop(void *ctx, void *link)
{
    (void) ctx;
    ((fake_link_t *) link)->dropped = true;
}

static bool fake_shard_ready(void *ctx, int shard, int64_t now)
{
    cr_assert_eq(shard, 3, "the shard bind named");
    (void) now;
    return !((fake_port_t *) ctx)->shard_down;
}

static int fake_forward(void *ctx, int shard, const ts_env_t *env)
{
    fake_port_t *f = ctx;
    cr_assert_eq(shard, 3, "the shard bind named");
    cr_assert_lt(f->nfwd, FAKE_MAX);
    f->fwd[f->nfwd++] = *env;
    return f->forward_fails ? -1 : 0;
}

static void fake_await(void *ctx, uint64_t id, uint64_t seq, int64_t deadline)
{
    fake_port_t *f = ctx;
    f->await_id = id;
    f->await_seq = seq;
    f->await_deadline = deadline;
    f->nawait++;
}

static gate_session_t *fake_bind(void *ctx, uint64_t player_id, gate_session_t *s, int *shard)
{
    fake_port_t *f = ctx;
    *shard = 3;
    for (int i = 0; i < 8; i++) {
        if (f->players[i] == player_id || f->players[i] == 0) {
            gate_session_t *before = f->players[i] ? f->bound[i] : NULL;
            f->players[i] = player_id;
            f->bound[i] = s;
            return before;
        }
    }
    cr_assert_fail("more players than the fake holds");
    return NULL;
}

static void fake_port_init(fake_port_t *f)
{
    memset(f, 0, sizeof *f);
    f->port = (gate_session_port_t) {
        .send = fake_send, .send_sync_reply = fake_send_sync_reply, .send_datagram = fake_send_datagram,
        .close = fake_close, .drop = fake_drop, .shard_ready = fake_shard_ready, .forward = fake_forward,
        .await = fake_await, .bind = fake_bind, .ctx = f,
    };
}

/* The last message l's stream was sent. */
static const ts_msg_t *fake_last(const fake_link_t *l)
{
    cr_assert_gt(l->nsent, 0, "nothing was sent");
    return &l->sent[l->nsent - 1];
}

/* A client message's bytes, as a frame body. */
static size_t fake_encode(const ts_msg_t *m, uint8_t *buf, size_t cap)
{
    size_t n = ts_msg_encode(m, buf, cap);
    cr_assert_gt(n, 0);
    return n;
}

/* A HELLO for player (token: NULL for none). */
static size_t fake_hello(uint64_t seq, uint64_t player, const uint8_t *token, size_t token_len, uint8_t *buf,
                         size_t cap)
{
    ts_msg_t m = { .type = TS_HELLO, .seq = seq };
    m.u.hello.version = TS_PROTOCOL_VERSION;
    m.u.hello.player_id = player;
    if (token) {
        m.u.hello.has_token = true;
        m.u.hello.token_len = token_len;
        memcpy(m.u.hello.token, token, token_len);
    }
    return fake_encode(&m, buf, cap);
}

#endif
