/* gate/conn.c - see conn.h. */
#include "conn.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "frame.h"
#include "ws.h"

/* A stream's transport: how bytes in become message bodies, how a body
 * goes out, and what is said before the write side is shut. */
typedef struct {
    gate_feed_t (*feed)(gate_conn_t *self, const uint8_t *data, size_t len, const gate_conn_input_t *in);
    /* body sits at buf + TS_FRAME_HEADER (room for a header before it) */
    int (*frame)(gate_conn_t *self, uint8_t *buf, size_t body_len);
    void (*last_words)(gate_conn_t *self);
} transport_ops_t;

static const transport_ops_t tcp_ops, ws_ops;

struct gate_conn_t {
    int                    fd;
    uint64_t               id;
    gate_conn_state_t      state;
    const transport_ops_t *ops;
    ts_framer_t           *framer;      /* TCP */
    gate_ws_t             *ws;          /* WebSocket */
    gate_session_t        *session;
    uint8_t               *out;         /* queued bytes out[out_off..out_len) */
    size_t                 out_off, out_len, out_size, out_cap;
    int64_t                close_at;
    bool                   shut;
    bool                   corked;      /* queue everything; flush at uncork */
    size_t                 unstamped[GATE_EXCHANGE_SLOTS];   /* corked SYNC_REPLYs: where each ends in out */
    int                    nunstamped;
    gate_exchange_t       *stamp_to;    /* whose exchanges the unstamped replies are */
    bool                   pending;     /* on the gate's ready list: input left unread */
    struct sockaddr_storage peer;
};

static int ws_write(void *arg, const uint8_t *bytes, size_t len);

gate_conn_t *gate_conn_new(int fd, uint64_t id, gate_transport_t transport, const char *origins, size_t out_cap)
{
    gate_conn_t *self = calloc(1, sizeof *self);
    if (!self)
        return NULL;
    if (transport == GATE_TRANSPORT_WS) {
        gate_ws_io_t io = { .write = ws_write, .arg = self };
        self->ws = gate_ws_new(origins, TS_FRAME_MAX, &io);
        self->ops = &ws_ops;
    } else {
        self->framer = ts_framer_new();
        self->ops = &tcp_ops;
    }
    if (!self->ws && !self->framer) {
        free(self);
        return NULL;
    }
    self->fd = fd;
    self->id = id;
    self->out_cap = out_cap;
    socklen_t len = sizeof self->peer;
    getpeername(fd, (struct sockaddr *) &self->peer, &len);
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
    gate_session_destroy(&self->session);
    free(self->out);
    free(self);
    *self_p = NULL;
}

int gate_conn_fd(const gate_conn_t *self) { return self->fd; }
uint64_t gate_conn_id(const gate_conn_t *self) { return self->id; }
gate_conn_state_t gate_conn_state(const gate_conn_t *self) { return self->state; }
const struct sockaddr_storage *gate_conn_peer(const gate_conn_t *self) { return &self->peer; }

void gate_conn_attach(gate_conn_t *self, gate_session_t *session)
{
    gate_session_destroy(&self->session);
    self->session = session;
}

gate_session_t *gate_conn_session(const gate_conn_t *self) { return self->session; }

gate_feed_t gate_conn_feed(gate_conn_t *self, const uint8_t *data, size_t len, const gate_conn_input_t *in)
{
    if (self->state != GATE_CONN_OPEN)
        return GATE_FEED_OK;   /* discarded */
    return self->ops->feed(self, data, len, in);
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

static bool has_output(const gate_conn_t *self) { return self->out_off < self->out_len; }

/* Writes bytes now when nothing is queued before them, queues the rest. */
static int emit(gate_conn_t *self, const uint8_t *bytes, size_t len)
{
    if (self->state == GATE_CONN_GONE || (self->state == GATE_CONN_CLOSING && self->shut))
        return 0;
    /* corked: write early rather than let batching alone reach the cap */
    if (self->corked && self->out_len - self->out_off + len > self->out_cap / 2 && gate_conn_flush(self) < 0)
        return -1;
    if (!self->corked && !has_output(self)) {
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

/* One message, framed by the transport: either way its bytes end the
 * bytes emitted, where stamp_replies finds a SYNC_REPLY's t3. */
static int send_encoded(gate_conn_t *self, const ts_msg_t *msg)
{
    uint8_t buf[TS_FRAME_HEADER + TS_FRAME_MAX];
    size_t n = ts_msg_encode(msg, buf + TS_FRAME_HEADER, TS_FRAME_MAX);
    if (n == 0)
        return -1;
    return self->ops->frame(self, buf, n);
}

int gate_conn_send(gate_conn_t *self, const uint8_t *body, size_t len)
{
    uint8_t buf[TS_FRAME_HEADER + TS_FRAME_MAX];
    if (len == 0 || len > TS_FRAME_MAX)
        return -1;
    memcpy(buf + TS_FRAME_HEADER, body, len);
    return self->ops->frame(self, buf, len);
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
    gate_exchange_stamp(self->stamp_to, mono);
    self->nunstamped = 0;
}

int gate_conn_send_sync_reply(gate_conn_t *self, gate_exchange_t *x, uint64_t seq, int64_t t1, int64_t t2)
{
    ts_msg_t m;   /* the encoder reads the type's own fields only: the rest is left as it is */
    m.type = TS_SYNC_REPLY;
    m.seq = seq;
    m.u.sync_reply = (ts_sync_reply_t) { .t1 = t1, .t2 = t2 };
    bool later = self->corked && self->nunstamped < GATE_EXCHANGE_SLOTS
              && (self->nunstamped == 0 || self->stamp_to == x);
    gate_exchange_reply(x, seq, later);
    if (later) {   /* stamped by the write that carries it (stamp_replies) */
        if (send_encoded(self, &m) < 0)
            return -1;
        if (has_output(self)) {   /* else nothing was queued: the write side is shut */
            self->stamp_to = x;
            self->unstamped[self->nunstamped++] = self->out_len;
        }
        return 0;
    }
    m.u.sync_reply.t3 = ts_clock_real_us();
    return send_encoded(self, &m);
}

void gate_conn_set_pending(gate_conn_t *self, bool pending) { self->pending = pending; }
bool gate_conn_pending(const gate_conn_t *self) { return self->pending; }

bool gate_conn_cork(gate_conn_t *self)
{
    bool was = self->corked;
    self->corked = true;
    return !was;
}

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

void gate_conn_retire(gate_conn_t *self)
{
    self->state = GATE_CONN_GONE;
}

void gate_conn_close_after(gate_conn_t *self, int64_t deadline_us)
{
    if (self->state != GATE_CONN_OPEN)
        return;
    self->ops->last_words(self);   /* a failed write shows at the flush */
    self->state = GATE_CONN_CLOSING;
    self->close_at = deadline_us;
    if (!has_output(self)) {
        shutdown(self->fd, SHUT_WR);
        self->shut = true;
    }
}

int64_t gate_conn_close_deadline(const gate_conn_t *self) { return self->close_at; }

gate_ws_fault_t gate_conn_fault(const gate_conn_t *self)
{
    return self->ws ? gate_ws_fault(self->ws) : GATE_WS_OK;
}

/* ---- TCP: length-prefixed frames (PROTOCOL "Framing") -------------------- */

static gate_feed_t tcp_feed(gate_conn_t *self, const uint8_t *data, size_t len, const gate_conn_input_t *in)
{
    size_t off = 0;
    while (off < len) {
        size_t used;
        const uint8_t *body;
        size_t body_len;
        int rc = ts_framer_feed(self->framer, data + off, len - off, &used, &body, &body_len);
        off += used;
        if (rc < 0) {
            in->bad_frame(in->arg, (ts_error_t) -rc);
            break;
        }
        if (rc == TS_FRAME_NEED_MORE || !in->message(in->arg, body, body_len))
            break;
    }
    return GATE_FEED_OK;
}

static int tcp_frame(gate_conn_t *self, uint8_t *buf, size_t body_len)
{
    ts_frame_put_header(buf, (uint32_t) body_len);
    return emit(self, buf, TS_FRAME_HEADER + body_len);
}

static void tcp_last_words(gate_conn_t *self)
{
    (void) self;   /* TCP says nothing: the shutdown is its end */
}

static const transport_ops_t tcp_ops = { tcp_feed, tcp_frame, tcp_last_words };

/* ---- WebSocket: one binary message a PROTOCOL message (gate/ws.h) -------- */

static int ws_write(void *arg, const uint8_t *bytes, size_t len)
{
    return emit(arg, bytes, len);
}

/* One read's messages, until the session wants no more. */
typedef struct {
    const gate_conn_input_t *in;
    bool                     stopped;
} ws_read_t;

/* An empty message is BAD_FRAME, as a TCP frame of length 0. */
static void ws_message(void *arg, const uint8_t *body, size_t len)
{
    ws_read_t *r = arg;
    if (r->stopped)
        return;
    if (len == 0) {
        r->in->bad_frame(r->in->arg, TS_BAD_FRAME);
        r->stopped = true;
    } else if (!r->in->message(r->in->arg, body, len)) {
        r->stopped = true;
    }
}

static gate_feed_t ws_feed(gate_conn_t *self, const uint8_t *data, size_t len, const gate_conn_input_t *in)
{
    ws_read_t r = { in, false };
    bool was_open = gate_ws_open(self->ws);
    int rc = gate_ws_feed(self->ws, data, len, ws_message, &r);
    if (rc < 0)
        return GATE_FEED_FAILED;
    if (rc > 0)
        return GATE_FEED_CLOSE;
    return !was_open && gate_ws_open(self->ws) ? GATE_FEED_OPENED : GATE_FEED_OK;
}

static int ws_frame(gate_conn_t *self, uint8_t *buf, size_t body_len)
{
    return gate_ws_open(self->ws) ? gate_ws_send(self->ws, buf + TS_FRAME_HEADER, body_len) : 0;
}

static void ws_last_words(gate_conn_t *self)
{
    gate_ws_close(self->ws, 1000);
}

static const transport_ops_t ws_ops = { ws_feed, ws_frame, ws_last_words };
