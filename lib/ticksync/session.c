/* lib/ticksync/session.c - ticksync_session_t of ticksync.h: PROTOCOL.md's client
 * side over byte buffers. It numbers SYNCs, answers each fresh SYNC_REPLY
 * with a SYNC_ACK carrying the client's own estimates, and feeds the
 * estimator. A reply whose seq was never sent, or was answered already, is
 * ignored, so a duplicated or replayed datagram cannot skew the clock. */
#include <stdlib.h>
#include <string.h>

#include "datagram.h"
#include "msg.h"
#include "ticksync.h"
#ifndef TICKSYNC_NO_UDP
#include "udptag.h"
#endif

struct ticksync_session_t {
    ticksync_t              *clock;
    ticksync_session_state_t state;
    uint64_t                 player_id;
    uint8_t                  token[TS_TOKEN_KEEP];
    size_t                   token_len;
    bool                     has_token;
    uint64_t                 session_id;
    bool                     has_udp_key;
    uint8_t                  udp_key[TS_UDP_KEY_BYTES];
    uint64_t                 next_seq;       /* of the next SYNC */
    uint64_t                 answered;       /* highest seq whose SYNC_REPLY was used */
    int64_t                  rtt, srtt, rttvar;
    int                      last_error;
    char                     error_text[TS_TEXT_MAX];   /* the last ERROR's message */
    bool                     replaced;
};

ticksync_session_t *ticksync_session_new(uint64_t player_id, const uint8_t *token, size_t token_len,
                                         const ticksync_config_t *config)
{
    if (player_id == 0 || token_len > TS_TOKEN_KEEP)
        return NULL;
    ticksync_session_t *self = calloc(1, sizeof *self);
    if (!self)
        return NULL;
    self->clock = ticksync_new(config);
    if (!self->clock) {
        free(self);
        return NULL;
    }
    self->player_id = player_id;
    self->has_token = token != NULL;
    if (token)
        memcpy(self->token, token, token_len);
    self->token_len = token_len;
    self->rtt = -1;
    ticksync_session_reset(self);
    return self;
}

void ticksync_session_destroy(ticksync_session_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    ticksync_destroy(&(*self_p)->clock);
    free(*self_p);
    *self_p = NULL;
}

void ticksync_session_reset(ticksync_session_t *self)
{
    self->state = TICKSYNC_SESSION_NEW;
    self->session_id = 0;
    self->has_udp_key = false;
    self->next_seq = 1;
    self->answered = 0;
}

size_t ticksync_session_hello(ticksync_session_t *self, uint8_t *buf, size_t cap)
{
    ts_msg_t m = { .type = TS_HELLO, .seq = 0 };
    m.u.hello.version = 1;
    m.u.hello.player_id = self->player_id;
    m.u.hello.has_token = self->has_token;
    m.u.hello.token_len = self->token_len;
    memcpy(m.u.hello.token, self->token, self->token_len);
    return ts_msg_encode(&m, buf, cap);
}

size_t ticksync_session_sync(ticksync_session_t *self, int64_t local, uint8_t *buf, size_t cap)
{
    if (self->state != TICKSYNC_SESSION_WELCOMED || local < ticksync_next_sync(self->clock))
        return 0;
    ts_msg_t m = { .type = TS_SYNC, .seq = self->next_seq };
    m.u.sync.t1 = local;
    size_t n = ts_msg_encode(&m, buf, cap);
    if (n) {
        self->next_seq++;
        ticksync_sent(self->clock, local);
    }
    return n;
}

/* t4 is when the reply arrived; t5 is now, as the ACK leaves. */
static size_t on_reply(ticksync_session_t *self, const ts_msg_t *m, int64_t arrived, int64_t local, uint8_t *reply,
                       size_t cap)
{
    const ts_sync_reply_t *r = &m->u.sync_reply;
    if (m->seq <= self->answered || m->seq >= self->next_seq || r->t1 > arrived)
        return 0;
    self->answered = m->seq;
    ticksync_sample(self->clock, r->t1, r->t2, r->t3, arrived);
    ts_msg_t ack = { .type = TS_SYNC_ACK, .seq = m->seq };
    ack.u.sync_ack.t4 = arrived;
    ack.u.sync_ack.t5 = local;
    if (ticksync_synced(self->clock)) {
        ack.u.sync_ack.has_client_rtt = ack.u.sync_ack.has_client_offset = true;
        ack.u.sync_ack.client_rtt = ticksync_delay(self->clock);
        ack.u.sync_ack.client_offset = ticksync_offset(self->clock, local);
    }
    return ts_msg_encode(&ack, reply, cap);
}

int ticksync_session_receive(ticksync_session_t *self, const uint8_t *msg, size_t len, int64_t local,
                             uint8_t *reply, size_t cap)
{
    return ticksync_session_receive_at(self, msg, len, local, local, reply, cap);
}

int ticksync_session_receive_at(ticksync_session_t *self, const uint8_t *msg, size_t len, int64_t arrived,
                                int64_t local, uint8_t *reply, size_t cap)
{
    ts_msg_t m;
    if (arrived > local)
        arrived = local;
    if (self->state == TICKSYNC_SESSION_CLOSED || ts_msg_decode(msg, len, TS_FROM_SERVER, &m) != TS_OK)
        return -1;
    switch (m.type) {
    case TS_WELCOME:
        if (self->state != TICKSYNC_SESSION_NEW)
            return 0;
        self->state = TICKSYNC_SESSION_WELCOMED;
        self->session_id = m.u.welcome.session_id;
        self->has_udp_key = m.u.welcome.has_udp_key;
        memcpy(self->udp_key, m.u.welcome.udp_key, sizeof self->udp_key);
        if (m.u.welcome.sync_interval_ms > 0 && m.u.welcome.sync_interval_ms < INT64_MAX / 1000)
            ticksync_set_interval(self->clock, (int64_t) m.u.welcome.sync_interval_ms * 1000);
        return 0;
    case TS_SYNC_REPLY:
        return self->state == TICKSYNC_SESSION_WELCOMED ? (int) on_reply(self, &m, arrived, local, reply, cap) : 0;
    case TS_SYNC_RESULT:
        self->rtt = m.u.sync_result.rtt;
        self->srtt = m.u.sync_result.srtt;
        self->rttvar = m.u.sync_result.rttvar;
        return 0;
    case TS_ERROR:
        self->last_error = (int) m.u.error.code;
        memcpy(self->error_text, m.u.error.text, sizeof self->error_text);
        if (m.u.error.code != TS_BAD_MESSAGE && m.u.error.code != TS_RATE_LIMITED && m.u.error.code != TS_UNAVAILABLE) {
            self->state = TICKSYNC_SESSION_CLOSED;
            return -1;
        }
        return 0;
    case TS_BYE:
        self->replaced = strcmp(m.u.bye.text, "replaced") == 0;
        self->state = TICKSYNC_SESSION_CLOSED;
        return -1;
    default:
        return 0;
    }
}

ticksync_session_state_t ticksync_session_state(const ticksync_session_t *self) { return self->state; }
ticksync_t *ticksync_session_clock(ticksync_session_t *self) { return self->clock; }
uint64_t ticksync_session_id(const ticksync_session_t *self) { return self->session_id; }
int ticksync_session_last_error(const ticksync_session_t *self) { return self->last_error; }
const char *ticksync_session_error_text(const ticksync_session_t *self) { return self->error_text; }
bool ticksync_session_replaced(const ticksync_session_t *self) { return self->replaced; }

bool ticksync_session_udp_ready(const ticksync_session_t *self)
{
    return self->state == TICKSYNC_SESSION_WELCOMED && self->has_udp_key;
}

void ticksync_session_server_rtt(const ticksync_session_t *self, int64_t *rtt, int64_t *srtt, int64_t *rttvar)
{
    if (rtt)
        *rtt = self->rtt;
    if (srtt)
        *srtt = self->srtt;
    if (rttvar)
        *rttvar = self->rttvar;
}

/* A build without UDP (TICKSYNC_NO_UDP: WebAssembly, whose browser has no
 * UDP socket, and which has no libsodium for the tag) wraps and unwraps
 * nothing; WELCOME from a WebSocket gate carries no udp_key anyway. */
#ifdef TICKSYNC_NO_UDP
size_t ticksync_session_udp_wrap(const ticksync_session_t *self, const uint8_t *msg, size_t len, uint8_t *out,
                                 size_t cap)
{
    (void) self, (void) msg, (void) len, (void) out, (void) cap;
    return 0;
}

size_t ticksync_session_udp_unwrap(const ticksync_session_t *self, const uint8_t *dgram, size_t len,
                                   const uint8_t **msg)
{
    (void) self, (void) dgram, (void) len, (void) msg;
    return 0;
}
#else
size_t ticksync_session_udp_wrap(const ticksync_session_t *self, const uint8_t *msg, size_t len, uint8_t *out,
                                 size_t cap)
{
    if (!ticksync_session_udp_ready(self))
        return 0;
    return ts_udptag_wrap(self->session_id, self->udp_key, msg, len, out, cap);
}

size_t ticksync_session_udp_unwrap(const ticksync_session_t *self, const uint8_t *dgram, size_t len,
                                   const uint8_t **msg)
{
    ts_dgram_t d;
    if (!ticksync_session_udp_ready(self) || ts_dgram_parse(dgram, len, &d) < 0 || d.session_id != self->session_id
        || !ts_udptag_check(self->udp_key, d.msg, d.msg_len, d.tag))
        return 0;
    *msg = d.msg;
    return d.msg_len;
}
#endif
