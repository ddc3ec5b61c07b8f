/* gate/session.c - see session.h.
 *
 * Every answer goes out on the way its request came: a message that came
 * on the stream is answered on the stream, a SYNC or SYNC_ACK that came by
 * UDP by datagram to where it came from. Only the stream's ERRORs close a
 * session; a datagram's (RATE_LIMITED, UNAVAILABLE) close nothing. */
#include "session.h"

#include <sodium.h>
#include <stdlib.h>
#include <string.h>

#include "bucket.h"
#include "clock.h"
#include "datagram.h"
#include "frame.h"
#include "token.h"

struct gate_session_t {
    const gate_session_config_t *config;
    const gate_session_port_t   *port;
    void                        *link;
    uint64_t                     id, player_id;
    int                          shard;      /* the player's, as the port's bind named it */
    gate_session_state_t         state;
    bool                         datagrams;  /* UDP may be offered */
    bool                         udp;        /* WELCOME gave it udp_key */
    bool                         ended;      /* gate_session_end has run */
    int                          bad_messages;
    gate_bucket_t                bucket;
    gate_exchange_t             *exchanges;
    uint8_t                      udp_key[TS_UDP_KEY_BYTES];
    struct sockaddr_storage      udp_peer;   /* where datagram answers go: the last admitted one's source */
    socklen_t                    udp_peer_len;
};

gate_session_t *gate_session_new(const gate_session_config_t *config, const gate_session_port_t *port, void *link,
                                 uint64_t id, bool datagrams, int64_t now)
{
    gate_session_t *self = calloc(1, sizeof *self);
    if (!self)
        return NULL;
    self->exchanges = gate_exchange_new();
    if (!self->exchanges) {
        free(self);
        return NULL;
    }
    self->config = config;
    self->port = port;
    self->link = link;
    self->id = id;
    self->datagrams = datagrams;
    gate_bucket_init(&self->bucket, config->sync_rate, now);
    return self;
}

void gate_session_destroy(gate_session_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    gate_exchange_destroy(&(*self_p)->exchanges);
    free(*self_p);
    *self_p = NULL;
}

uint64_t gate_session_id(const gate_session_t *self) { return self->id; }
gate_session_state_t gate_session_state(const gate_session_t *self) { return self->state; }
uint64_t gate_session_player(const gate_session_t *self) { return self->player_id; }
void *gate_session_link(const gate_session_t *self) { return self->link; }

/* Metrics of a type or code the gate does not register are NULL. */
static void add(ts_metric_t *metric, uint64_t delta)
{
    if (metric)
        ts_metric_add(metric, delta);
}

static void count(ts_metric_t *metric)
{
    add(metric, 1);
}

/* ---- saying things ------------------------------------------------------ */

static void drop(gate_session_t *self)
{
    count(self->config->stats->stalled);
    self->port->drop(self->port->ctx, self->link);
}

/* A message of type, encoded as body, on the stream; a stream that cannot
 * take it is dropped. */
static void say_encoded(gate_session_t *self, int type, const uint8_t *body, size_t len)
{
    if (self->state == GATE_SESSION_CLOSED || len == 0)
        return;
    if (self->port->send(self->port->ctx, self->link, body, len) < 0) {
        drop(self);
        return;
    }
    count(self->config->stats->out[type]);
}

static void say(gate_session_t *self, const ts_msg_t *msg)
{
    uint8_t body[TS_FRAME_MAX];
    say_encoded(self, msg->type, body, ts_msg_encode(msg, body, sizeof body));
}

/* Likewise by datagram, to the source of the session's last admitted one. */
static void say_encoded_by_datagram(gate_session_t *self, int type, const uint8_t *body, size_t len)
{
    uint8_t dgram[TS_DGRAM_MAX];
    size_t n = self->udp_peer_len && len ? ts_udptag_wrap(self->id, self->udp_key, body, len, dgram, sizeof dgram) : 0;
    if (n == 0)
        return;
    self->port->send_datagram(self->port->ctx, dgram, n, &self->udp_peer, self->udp_peer_len);
    count(self->config->stats->out[type]);
}

static void say_by_datagram(gate_session_t *self, const ts_msg_t *msg)
{
    uint8_t body[TS_DGRAM_MAX - TS_DGRAM_HEADER];
    say_encoded_by_datagram(self, msg->type, body, ts_msg_encode(msg, body, sizeof body));
}

void gate_session_close(gate_session_t *self)
{
    if (self->state == GATE_SESSION_CLOSED)
        return;
    self->state = GATE_SESSION_CLOSED;
    self->port->close(self->port->ctx, self->link);
}

/* PROTOCOL "Errors": which codes leave the session open. */
static bool keeps_open(gate_session_t *self, ts_error_t code)
{
    return code == TS_RATE_LIMITED || code == TS_UNAVAILABLE
        || (code == TS_BAD_MESSAGE && ++self->bad_messages < GATE_MAX_BAD);
}

/* ERROR with seq for a message that came via; on the stream, then the
 * close rule of its code. */
static void refuse(gate_session_t *self, uint64_t seq, ts_error_t code, gate_via_t via)
{
    ts_msg_t m;
    ts_msg_error(&m, seq, code, NULL);
    count(self->config->stats->errors[code]);
    if (via == GATE_VIA_UDP) {
        say_by_datagram(self, &m);
        return;
    }
    say(self, &m);
    if (!keeps_open(self, code))
        gate_session_close(self);
}

void gate_session_bye(gate_session_t *self, const char *reason)
{
    if (self->state == GATE_SESSION_CLOSED)
        return;
    ts_msg_t m;
    ts_msg_bye(&m, 0, reason);
    say(self, &m);
    gate_session_close(self);
}

/* An envelope about this session for the player's shard. */
static ts_env_t envelope(const gate_session_t *self, uint64_t kind, uint64_t seq)
{
    return (ts_env_t) { .kind = kind, .conn = self->id, .player_id = self->player_id, .seq = seq };
}

void gate_session_held(gate_session_t *self, uint64_t shards)
{
    if (self->state != GATE_SESSION_WELCOMED || self->shard >= 64 || !(shards >> self->shard & 1))
        return;
    ts_env_t env = envelope(self, TS_ENV_HELD, 0);
    self->port->forward(self->port->ctx, self->shard, &env);
}

void gate_session_end(gate_session_t *self)
{
    if (self->ended)
        return;
    self->ended = true;
    if (self->player_id) {
        ts_env_t env = envelope(self, TS_ENV_CLOSE, 0);
        self->port->forward(self->port->ctx, self->shard, &env);
        add(self->config->stats->sessions, (uint64_t) -1);
    }
    self->state = GATE_SESSION_CLOSED;
}

/* ---- HELLO -------------------------------------------------------------- */

static bool token_good(const gate_session_t *self, const ts_hello_t *h)
{
    const gate_session_config_t *cfg = self->config;
    return !cfg->secret
        || (h->has_token && ts_token_check(cfg->secret, cfg->secret_len, h->player_id, h->token, h->token_len,
                                           ts_clock_real_us() / 1000000) == 0);
}

/* Binds the player here, and a session it was on before is replaced. */
static void bind_player(gate_session_t *self, uint64_t player_id)
{
    self->state = GATE_SESSION_WELCOMED;
    self->player_id = player_id;
    count(self->config->stats->sessions);
    gate_session_t *prev = self->port->bind(self->port->ctx, player_id, self, &self->shard);
    if (prev && prev != self) {
        count(self->config->stats->replaced);
        gate_session_bye(prev, "replaced");
    }
}

static void on_hello(gate_session_t *self, const ts_msg_t *m)
{
    if (!token_good(self, &m->u.hello)) {
        refuse(self, m->seq, TS_UNAUTHORIZED, GATE_VIA_STREAM);
        return;
    }
    bind_player(self, m->u.hello.player_id);
    ts_msg_t w = { .type = TS_WELCOME, .seq = m->seq };
    w.u.welcome.version = TS_PROTOCOL_VERSION;
    w.u.welcome.session_id = self->id;
    w.u.welcome.server_time = ts_clock_real_us();
    w.u.welcome.sync_interval_ms = self->config->sync_interval_ms;
    if (self->config->udp && self->datagrams) {
        randombytes_buf(self->udp_key, sizeof self->udp_key);
        memcpy(w.u.welcome.udp_key, self->udp_key, sizeof self->udp_key);
        w.u.welcome.has_udp_key = self->udp = true;
    }
    say(self, &w);
    if (self->state == GATE_SESSION_WELCOMED) {
        ts_env_t env = envelope(self, TS_ENV_OPEN, 0);
        self->port->forward(self->port->ctx, self->shard, &env);
    }
}

/* ---- the exchange ------------------------------------------------------- */

/* A SYNC is answered at once, whatever the shard's state: its SYNC_REPLY
 * needs only t1 and t2 echoed and t3, so the client's clock needs only the
 * gate. Its envelope goes to the player's shard, which starts the exchange
 * from it; one the shard cannot be told of goes unmeasured, and its
 * SYNC_ACK is answered UNAVAILABLE. */
static void on_sync(gate_session_t *self, const ts_msg_t *m, int64_t t2, int64_t now, gate_via_t via)
{
    const gate_stats_t *st = self->config->stats;
    if (!gate_bucket_take(&self->bucket, now)) {
        refuse(self, m->seq, TS_RATE_LIMITED, via);
        return;
    }
    bool tracked = gate_exchange_begin(self->exchanges, m->seq, via, now);
    if (!tracked)
        count(st->inflight_full);
    bool forwarded = false;
    if (tracked && self->port->shard_ready(self->port->ctx, self->shard, now)) {
        ts_env_t env = envelope(self, TS_ENV_SYNC, m->seq);
        env.t1 = m->u.sync.t1;
        env.t2 = t2;
        forwarded = self->port->forward(self->port->ctx, self->shard, &env) == 0;
    }
    if (!forwarded)
        count(st->unmeasured);
    if (via == GATE_VIA_UDP) {
        gate_exchange_reply(self->exchanges, m->seq, false);
        ts_msg_t r = { .type = TS_SYNC_REPLY, .seq = m->seq };
        r.u.sync_reply = (ts_sync_reply_t) { m->u.sync.t1, t2, ts_clock_real_us() };
        say_by_datagram(self, &r);
    } else {
        if (self->port->send_sync_reply(self->port->ctx, self->link, self->exchanges, m->seq, m->u.sync.t1, t2) < 0) {
            drop(self);
            return;
        }
        count(st->out[TS_SYNC_REPLY]);
    }
    if (st->inside)
        ts_metric_observe(st->inside, (double) (ts_clock_real_us() - t2) / 1e6);
}

/* A SYNC_ACK goes to the shard, which owes a SYNC_RESULT: one that has not
 * come within GATE_RESULT_US (the shard died with it) is UNAVAILABLE. */
static void on_sync_ack(gate_session_t *self, const ts_msg_t *m, int64_t now, gate_via_t via)
{
    int64_t deadline = now + GATE_RESULT_US;
    int64_t t6_t3 = gate_exchange_ack(self->exchanges, m->seq, now, via, deadline);
    if (t6_t3 < 0)
        return;   /* no pending exchange with this seq: ignored (PROTOCOL) */
    gate_via_t came;
    if (!self->port->shard_ready(self->port->ctx, self->shard, now)) {
        gate_exchange_result(self->exchanges, m->seq, &came);   /* no SYNC_RESULT will come: the slot is done */
        refuse(self, m->seq, TS_UNAVAILABLE, via);
        return;
    }
    self->port->await(self->port->ctx, self->id, m->seq, deadline);
    const ts_sync_ack_t *a = &m->u.sync_ack;
    ts_env_t env = envelope(self, TS_ENV_SYNC_ACK, m->seq);
    env.t4 = a->t4;
    env.t5 = a->t5;
    env.t6_t3 = t6_t3;
    env.has_client_rtt = a->has_client_rtt;
    env.client_rtt = a->client_rtt;
    env.has_client_offset = a->has_client_offset;
    env.client_offset = a->client_offset;
    if (self->port->forward(self->port->ctx, self->shard, &env) < 0 && gate_exchange_result(self->exchanges, m->seq, &came))
        refuse(self, m->seq, TS_UNAVAILABLE, via);
}

/* ---- input -------------------------------------------------------------- */

void gate_session_frame(gate_session_t *self, const uint8_t *body, size_t len, int64_t t2, int64_t now)
{
    if (self->state == GATE_SESSION_CLOSED)
        return;
    ts_msg_t m;
    ts_error_t rc = ts_msg_decode_with(self->config->dec, body, len, TS_FROM_CLIENT, &m);
    if (rc != TS_OK) {
        refuse(self, rc == TS_BAD_FRAME ? 0 : m.seq, rc, GATE_VIA_STREAM);
        return;
    }
    count(self->config->stats->in[m.type]);
    if (self->state == GATE_SESSION_NEW) {
        if (m.type == TS_HELLO)
            on_hello(self, &m);
        else
            refuse(self, m.seq, TS_NOT_AUTHENTICATED, GATE_VIA_STREAM);
        return;
    }
    switch (m.type) {
    case TS_SYNC:     on_sync(self, &m, t2, now, GATE_VIA_STREAM); break;
    case TS_SYNC_ACK: on_sync_ack(self, &m, now, GATE_VIA_STREAM); break;
    case TS_BYE:      gate_session_close(self); break;
    default:          refuse(self, m.seq, TS_BAD_MESSAGE, GATE_VIA_STREAM); break;   /* HELLO again */
    }
}

void gate_session_bad_frame(gate_session_t *self, ts_error_t code)
{
    if (self->state != GATE_SESSION_CLOSED)
        refuse(self, 0, code, GATE_VIA_STREAM);
}

bool gate_session_udp(const gate_session_t *self)
{
    return self->udp && self->state == GATE_SESSION_WELCOMED;
}

bool gate_session_udp_check(const gate_session_t *self, const uint8_t *msg, size_t len, const uint8_t *tag)
{
    return gate_session_udp(self) && ts_udptag_check(self->udp_key, msg, len, tag);
}

void gate_session_datagram(gate_session_t *self, const ts_msg_t *msg, int64_t t2, int64_t now,
                           const struct sockaddr_storage *from, socklen_t from_len)
{
    if (self->state != GATE_SESSION_WELCOMED)
        return;
    self->udp_peer = *from;
    self->udp_peer_len = from_len;
    count(self->config->stats->in[msg->type]);
    if (msg->type == TS_SYNC)
        on_sync(self, msg, t2, now, GATE_VIA_UDP);
    else if (msg->type == TS_SYNC_ACK)
        on_sync_ack(self, msg, now, GATE_VIA_UDP);
}

/* ---- the shard's side --------------------------------------------------- */

/* Whether env is about this session as it is now (a connection id outlives
 * nothing, but a player may have been replaced or the session closed). */
static bool about_me(const gate_session_t *self, const ts_env_t *env)
{
    return self->state == GATE_SESSION_WELCOMED && self->player_id == env->player_id;
}

bool gate_session_result(gate_session_t *self, const ts_env_t *env)
{
    const gate_stats_t *st = self->config->stats;
    if (!about_me(self, env)) {
        count(st->gone);
        return false;
    }
    gate_via_t via;
    if (!gate_exchange_result(self->exchanges, env->seq, &via)) {
        count(st->late);
        return false;
    }
    /* the scene encoded the client's message: it goes on as it came */
    if (via == GATE_VIA_UDP)
        say_encoded_by_datagram(self, TS_SYNC_RESULT, env->reply, env->reply_len);
    else
        say_encoded(self, TS_SYNC_RESULT, env->reply, env->reply_len);
    return true;
}

void gate_session_unsent(gate_session_t *self, const ts_env_t *env)
{
    gate_via_t via;
    if (about_me(self, env) && env->kind == TS_ENV_SYNC_ACK && gate_exchange_result(self->exchanges, env->seq, &via))
        refuse(self, env->seq, TS_UNAVAILABLE, via);
}

void gate_session_expire(gate_session_t *self, uint64_t seq, int64_t deadline)
{
    gate_via_t via;
    if (self->state != GATE_SESSION_CLOSED && gate_exchange_expire(self->exchanges, seq, deadline, &via))
        refuse(self, seq, TS_UNAVAILABLE, via);
}
