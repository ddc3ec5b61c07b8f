/* gate/conn.c - see conn.h. */
#include "conn.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bucket.h"
#include "clock.h"
#include "udptag.h"
#include "datagram.h"
#include "frame.h"
#include "ws.h"

struct gate_conn_t {
    int               fd;
    uint64_t          id;
    gate_conn_state_t state;
    uint64_t          player_id, session_id;
    int               bad_messages;
    gate_bucket_t     bucket;
    ts_framer_t      *framer;
    gate_ws_t        *ws;          /* a WebSocket connection's end; NULL: TCP frames */
    uint8_t          *out;         /* queued bytes out[out_off..out_len) */
    size_t            out_off, out_len, out_size, out_cap;
    int64_t           close_at;
    bool              shut;
    bool              corked;      /* queue everything; flush at uncork */
    size_t            unstamped[GATE_EXCHANGE_SLOTS];   /* corked SYNC_REPLYs: where each ends in out */
    int               nunstamped;
    bool              pending;     /* on the gate's ready list: input left unread */
    gate_exchange_t  *exchanges;
    int               udp_fd;      /* the gate's UDP socket (borrowed), -1: UDP off */
    uint8_t           udp_key[TS_UDP_KEY_BYTES];
    struct sockaddr_storage peer, udp_peer;
    socklen_t         udp_peer_len;
};

gate_conn_t *gate_conn_new(int fd, uint64_t id, size_t out_cap, double sync_rate, int64_t now_us)
{
    gate_conn_t *self = calloc(1, sizeof *self);
    if (!self)
        return NULL;
    self->framer = ts_framer_new();
    self->exchanges = gate_exchange_new();
    if (!self->framer || !self->exchanges) {
        ts_framer_destroy(&self->framer);
        gate_exchange_destroy(&self->exchanges);
        free(self);
        return NULL;
    }
    self->fd = fd;
    self->id = id;
    self->out_cap = out_cap;
    self->udp_fd = -1;
    socklen_t len = sizeof self->peer;
    getpeername(fd, (struct sockaddr *) &self->peer, &len);
    gate_bucket_init(&self->bucket, sync_rate, now_us);
    return self;
}

void gate_conn_destroy(gate_conn_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    gate_conn_t *self = *self_p;
    if (self->fd >= 0)
        close(self->fd);
    ts_framer_destroy(&self->framer);
    gate_ws_destroy(&self->ws);
    gate_exchange_destroy(&self->exchanges);
    free(self->out);
    free(self);
    *self_p = NULL;
}

int gate_conn_fd(const gate_conn_t *self) { return self->fd; }
uint64_t gate_conn_id(const gate_conn_t *self) { return self->id; }
gate_conn_state_t gate_conn_state(const gate_conn_t *self) { return self->state; }
uint64_t gate_conn_player(const gate_conn_t *self) { return self->player_id; }
uint64_t gate_conn_session(const gate_conn_t *self) { return self->session_id; }
gate_exchange_t *gate_conn_exchanges(gate_conn_t *self) { return self->exchanges; }

void gate_conn_welcome(gate_conn_t *self, uint64_t player_id, uint64_t session_id)
{
    self->state = GATE_CONN_WELCOMED;
    self->player_id = player_id;
    self->session_id = session_id;
}

int gate_conn_bad_message(gate_conn_t *self) { return ++self->bad_messages; }

bool gate_conn_sync_allowed(gate_conn_t *self, int64_t now_us)
{
    return gate_bucket_take(&self->bucket, now_us);
}

int gate_conn_feed(gate_conn_t *self, const uint8_t *data, size_t len, size_t *consumed,
                   const uint8_t **body, size_t *body_len)
{
    return ts_framer_feed(self->framer, data, len, consumed, body, body_len);
}

static int queue(gate_conn_t *self, const uint8_t *bytes, size_t len)
{
    if (self->out_off > 0 && self->out_off == self->out_len)
        self->out_off = self->out_len = 0;
    if (self->out_len - self->out_off + len > self->out_cap)
        return -1;
    if (self->out_len + len > self->out_size) {
        if (self->out_off > 0)
            memmove(self->out, self->out + self->out_off, self->out_len - self->out_off);
        for (int i = 0; i < self->nunstamped; i++)
            self->unstamped[i] -= self->out_off;
        self->out_len -= self->out_off;
        self->out_off = 0;
        if (self->out_len + len > self->out_size) {
            size_t size = self->out_size ? self->out_size * 2 : 512;
            while (size < self->out_len + len)
                size *= 2;
            uint8_t *grown = realloc(self->out, size);
            if (!grown)
                return -1;
            self->out = grown;
            self->out_size = size;
        }
    }
    memcpy(self->out + self->out_len, bytes, len);
    self->out_len += len;
    return 0;
}

/* Writes bytes now when nothing is queued before them, queues the rest. */
static int emit(gate_conn_t *self, const uint8_t *bytes, size_t len)
{
    if (self->state == GATE_CONN_GONE || (self->state == GATE_CONN_CLOSING && self->shut))
        return 0;
    /* corked: write early rather than let batching alone reach the cap */
    if (self->corked && self->out_len - self->out_off + len > self->out_cap / 2 && gate_conn_flush(self) < 0)
        return -1;
    if (!self->corked && !gate_conn_has_output(self)) {
        ssize_t n = send(self->fd, bytes, len, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
            return -1;
        if (n > 0) {
            bytes += n;
            len -= (size_t) n;
        }
        if (len == 0)
            return 0;
    }
    return queue(self, bytes, len);
}

/* One message, as a TCP frame or a WebSocket binary frame: either way it
 * ends the bytes emitted, where stamp_replies finds a SYNC_REPLY's t3. */
static int send_encoded(gate_conn_t *self, const ts_msg_t *msg)
{
    uint8_t buf[TS_FRAME_HEADER + TS_FRAME_MAX];
    size_t n = ts_msg_encode(msg, buf + TS_FRAME_HEADER, TS_FRAME_MAX);
    if (n == 0)
        return -1;
    if (self->ws)
        return gate_ws_open(self->ws) ? gate_ws_send(self->ws, buf + TS_FRAME_HEADER, n) : 0;
    ts_frame_put_header(buf, (uint32_t) n);
    return emit(self, buf, TS_FRAME_HEADER + n);
}

int gate_conn_send(gate_conn_t *self, const ts_msg_t *msg)
{
    return send_encoded(self, msg);
}

/* The corked SYNC_REPLYs get their t3, real time for the client and
 * monotonic for their slots (the REPLIED ones with no t3 yet), immediately
 * before the write that carries them: one clock read for all of them, as
 * one write carries them all. */
static void stamp_replies(gate_conn_t *self)
{
    if (self->nunstamped == 0)
        return;
    int64_t real = ts_clock_real_us(), mono = ts_clock_mono_us();
    for (int i = 0; i < self->nunstamped; i++)
        ts_msg_set_t3(self->out + self->unstamped[i], real);
    gate_exchange_stamp(self->exchanges, mono);
    self->nunstamped = 0;
}

int gate_conn_send_sync_reply(gate_conn_t *self, uint64_t seq, int64_t t1, int64_t t2)
{
    ts_msg_t m = { .type = TS_SYNC_REPLY, .seq = seq };
    m.u.sync_reply.t1 = t1;
    m.u.sync_reply.t2 = t2;
    bool later = self->corked && self->nunstamped < GATE_EXCHANGE_SLOTS;
    int how = gate_exchange_reply(self->exchanges, seq, later);
    if (later && how == 0) {   /* stamped by the write that carries it (stamp_replies) */
        if (send_encoded(self, &m) < 0)
            return -1;
        if (gate_conn_has_output(self))   /* else nothing was queued: the write side is shut */
            self->unstamped[self->nunstamped++] = self->out_len;
        return 0;
    }
    m.u.sync_reply.t3 = ts_clock_real_us();
    return how == 1 ? gate_conn_send_udp(self, &m) : send_encoded(self, &m);
}

void gate_conn_set_pending(gate_conn_t *self, bool pending) { self->pending = pending; }
bool gate_conn_pending(const gate_conn_t *self) { return self->pending; }

void gate_conn_cork(gate_conn_t *self)
{
    self->corked = true;
}

bool gate_conn_corked(const gate_conn_t *self) { return self->corked; }

int gate_conn_uncork(gate_conn_t *self)
{
    self->corked = false;
    return gate_conn_flush(self) < 0 ? -1 : 0;
}

int gate_conn_flush(gate_conn_t *self)
{
    if (self->state == GATE_CONN_GONE)
        return 0;
    stamp_replies(self);
    while (self->out_off < self->out_len) {
        ssize_t n = send(self->fd, self->out + self->out_off, self->out_len - self->out_off,
                         MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return 1;
            if (errno == EINTR)
                continue;
            return -1;
        }
        self->out_off += (size_t) n;
    }
    self->out_off = self->out_len = 0;
    if (self->state == GATE_CONN_CLOSING && !self->shut) {
        shutdown(self->fd, SHUT_WR);
        self->shut = true;
    }
    return 0;
}

bool gate_conn_has_output(const gate_conn_t *self) { return self->out_off < self->out_len; }

void gate_conn_retire(gate_conn_t *self)
{
    self->state = GATE_CONN_GONE;
}

void gate_conn_close_after(gate_conn_t *self, int64_t deadline_us)
{
    if (self->state == GATE_CONN_CLOSING || self->state == GATE_CONN_GONE)
        return;
    if (self->ws)
        gate_ws_close(self->ws, 1000);   /* a failed write shows at the flush */
    self->state = GATE_CONN_CLOSING;
    self->close_at = deadline_us;
    if (!gate_conn_has_output(self)) {
        shutdown(self->fd, SHUT_WR);
        self->shut = true;
    }
}

int64_t gate_conn_close_deadline(const gate_conn_t *self) { return self->close_at; }

/* ---- WebSocket ------------------------------------------------------------ */

static int ws_write(void *arg, const uint8_t *bytes, size_t len)
{
    return emit(arg, bytes, len);
}

int gate_conn_use_ws(gate_conn_t *self, const char *origins)
{
    gate_ws_io_t io = { .write = ws_write, .arg = self };
    self->ws = gate_ws_new(origins, TS_FRAME_MAX, &io);
    return self->ws ? 0 : -1;
}

bool gate_conn_is_ws(const gate_conn_t *self) { return self->ws != NULL; }
bool gate_conn_ws_open(const gate_conn_t *self) { return self->ws && gate_ws_open(self->ws); }

int gate_conn_feed_ws(gate_conn_t *self, const uint8_t *data, size_t len, gate_ws_message_fn *on_message, void *arg)
{
    return gate_ws_feed(self->ws, data, len, on_message, arg);
}

gate_ws_fault_t gate_conn_ws_fault(const gate_conn_t *self)
{
    return self->ws ? gate_ws_fault(self->ws) : GATE_WS_OK;
}

/* ---- UDP ------------------------------------------------------------------ */

void gate_conn_enable_udp(gate_conn_t *self, int udp_fd, const uint8_t key[TS_UDP_KEY_BYTES])
{
    self->udp_fd = udp_fd;
    memcpy(self->udp_key, key, TS_UDP_KEY_BYTES);
}

bool gate_conn_udp_enabled(const gate_conn_t *self)
{
    return self->udp_fd >= 0 && self->state == GATE_CONN_WELCOMED;
}

bool gate_conn_udp_check(const gate_conn_t *self, const uint8_t *msg, size_t len, const uint8_t *tag)
{
    return gate_conn_udp_enabled(self) && ts_udptag_check(self->udp_key, msg, len, tag);
}

bool gate_conn_same_host(const gate_conn_t *self, const struct sockaddr_storage *from)
{
    if (from->ss_family != self->peer.ss_family)
        return false;
    if (from->ss_family == AF_INET)
        return ((const struct sockaddr_in *) from)->sin_addr.s_addr
               == ((const struct sockaddr_in *) &self->peer)->sin_addr.s_addr;
    if (from->ss_family == AF_INET6)
        return memcmp(&((const struct sockaddr_in6 *) from)->sin6_addr,
                      &((const struct sockaddr_in6 *) &self->peer)->sin6_addr, sizeof(struct in6_addr)) == 0;
    return false;
}

void gate_conn_set_udp_peer(gate_conn_t *self, const struct sockaddr_storage *from, socklen_t len)
{
    self->udp_peer = *from;
    self->udp_peer_len = len;
}

int gate_conn_send_udp(gate_conn_t *self, const ts_msg_t *msg)
{
    uint8_t body[TS_DGRAM_MAX], dgram[TS_DGRAM_MAX];
    size_t n = self->udp_peer_len ? ts_msg_encode(msg, body, sizeof body - TS_DGRAM_HEADER) : 0;
    size_t total = n ? ts_udptag_wrap(self->session_id, self->udp_key, body, n, dgram, sizeof dgram) : 0;
    if (total)
        sendto(self->udp_fd, dgram, total, MSG_DONTWAIT, (const struct sockaddr *) &self->udp_peer,
               self->udp_peer_len);   /* UDP may drop it; the client sends the next SYNC */
    return 0;
}
