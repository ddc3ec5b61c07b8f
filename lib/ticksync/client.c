/* lib/ticksync/client.c - ticksync_client_t of ticksync.h: a session on real
 * sockets. TCP always (HELLO, and exchanges until synced), UDP on the same
 * port once synced when asked for. A lost connection is made again after a
 * backoff (100 ms doubling to 2 s); the clock estimate carries on. The
 * same code runs on Winsock (sock.h).
 *
 * Every read is stamped with when its bytes reached the host (sock.h: the
 * kernel's stamp on Linux; with the network thread, the moment its poll
 * woke), and that, not the moment run got to it, is the reply's t4: a game
 * calling run once a frame would otherwise see each reply up to a frame
 * late and settle half a frame behind. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datagram.h"
#include "frame.h"
#include "msg.h"
#include "netthread.h"
#include "sock.h"   /* POSIX sockets or Winsock */
#include "ticksync.h"

#define BACKOFF_MIN_US 100000
#define BACKOFF_MAX_US 2000000
#define UNREACHABLE_AFTER 3   /* failed attempts in a row, when the options leave it 0 */

struct ticksync_client_t {
    ticksync_client_options_t opt;
    char                 host[256], port[8];
    ticksync_session_t  *session;
    ts_framer_t         *framer;
    ts_sock_t            tcp, udp;
    bool                 connecting;      /* TCP connect in progress */
    int64_t              retry_at;        /* local time of the next connect, when tcp < 0 */
    int64_t              backoff;
    unsigned             connects;
    uint8_t              out[8192];       /* TCP bytes not yet written */
    size_t               out_len;
    unsigned             failures;        /* connection attempts in a row that ended before WELCOME */
    bool                 attempting;      /* a connection attempt not yet WELCOMEd */
    bool                 refused;         /* the gate refused the session: run does nothing more */
    char                 refusal[32];     /* why, as PROTOCOL.md names it */
    char                 last_error[TICKSYNC_ERR_MAX];
    ts_netthread_t      *net;             /* the network thread, once started */
};

static int split_host_port(const char *text, char *host, char *port, char *err)
{
    const char *colon = strrchr(text, ':');
    size_t hl = colon ? (size_t) (colon - text) : 0;
    if (!colon || hl == 0 || hl > 255 || strlen(colon + 1) == 0 || strlen(colon + 1) > 5) {
        snprintf(err, TICKSYNC_ERR_MAX, "'%s' is not HOST:PORT", text);
        return -1;
    }
    if (text[0] == '[' && text[hl - 1] == ']') {
        memcpy(host, text + 1, hl - 2);
        host[hl - 2] = '\0';
    } else {
        memcpy(host, text, hl);
        host[hl] = '\0';
    }
    strcpy(port, colon + 1);
    return 0;
}

/* Ends the connection. An attempt that never got a WELCOME counts as a
 * failure. With the network thread, the sockets go to it to close. */
static void disconnect(ticksync_client_t *c, int64_t now)
{
    if (c->attempting)
        c->failures++;
    c->attempting = false;
    if (c->net) {
        ts_netthread_watch(c->net, TS_SOCK_NONE, TS_SOCK_NONE);   /* the thread closes them */
    } else {
        if (c->tcp != TS_SOCK_NONE)
            ts_sock_close(c->tcp);
        if (c->udp != TS_SOCK_NONE)
            ts_sock_close(c->udp);
    }
    c->tcp = c->udp = TS_SOCK_NONE;
    c->out_len = 0;
    c->connecting = false;
    ts_framer_destroy(&c->framer);
    c->retry_at = now + c->backoff;
    c->backoff = c->backoff * 2 > BACKOFF_MAX_US ? BACKOFF_MAX_US : c->backoff * 2;
}

/* Queues one message as a TCP frame. */
static int queue_tcp(ticksync_client_t *c, const uint8_t *msg, size_t len)
{
    if (len == 0 || c->out_len + TS_FRAME_HEADER + len > sizeof c->out)
        return -1;
    ts_frame_put_header(c->out + c->out_len, (uint32_t) len);
    memcpy(c->out + c->out_len + TS_FRAME_HEADER, msg, len);
    c->out_len += TS_FRAME_HEADER + len;
    return 0;
}

static int flush_tcp(ticksync_client_t *c)
{
    size_t done = 0;
    while (!c->connecting && done < c->out_len) {
        long n = ts_sock_send(c->tcp, c->out + done, c->out_len - done);
        int e = n < 0 ? ts_sock_error() : 0;
        if (n > 0)
            done += (size_t) n;
        else if (n < 0 && ts_sock_interrupted(e))
            continue;
        else if (n < 0 && ts_sock_would_block(e))
            break;
        else
            return -1;
    }
    memmove(c->out, c->out + done, c->out_len - done);
    c->out_len -= done;
    return 0;
}

/* Starts a non-blocking connect (TCP and UDP to the same address) and
 * queues HELLO; the attempt counts as failed unless a WELCOME follows.
 * Returns 0, or with a reason in err -1 when the host name does not
 * resolve, -2 when the connect failed at once. */
static int start_connect(ticksync_client_t *c, char *err)
{
    c->attempting = true;
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *res = NULL;
    int rc = getaddrinfo(c->host, c->port, &hints, &res);
    if (rc != 0) {
        snprintf(err, TICKSYNC_ERR_MAX, "cannot resolve %.200s: %s", c->host, gai_strerror(rc));
        return -1;
    }
    c->tcp = ts_sock_open(res->ai_family, SOCK_STREAM);
    c->udp = c->opt.udp ? ts_sock_open(res->ai_family, SOCK_DGRAM) : TS_SOCK_NONE;
    c->framer = ts_framer_new();
    bool ok = c->tcp != TS_SOCK_NONE && c->framer && (!c->opt.udp || c->udp != TS_SOCK_NONE);
    int e = ok ? 0 : ts_sock_error();
    if (ok && connect(c->tcp, res->ai_addr, (int) res->ai_addrlen) != 0) {
        ok = ts_sock_in_progress(e = ts_sock_error());
        c->connecting = ok;
    }
    if (ok && c->udp != TS_SOCK_NONE && connect(c->udp, res->ai_addr, (int) res->ai_addrlen) != 0) {
        e = ts_sock_error();
        ok = false;
    }
    freeaddrinfo(res);
    c->connects++;
    if (!ok) {
        snprintf(err, TICKSYNC_ERR_MAX, "cannot connect to %.200s:%s: %s", c->host, c->port, ts_sock_describe(e));
        return -2;
    }
    ts_sock_stamp_arrivals(c->tcp);
    if (c->udp != TS_SOCK_NONE)
        ts_sock_stamp_arrivals(c->udp);
    if (c->net)
        ts_netthread_watch(c->net, c->tcp, c->udp);
    ticksync_session_reset(c->session);
    uint8_t hello[TS_FRAME_MAX];
    queue_tcp(c, hello, ticksync_session_hello(c->session, hello, sizeof hello));
    return 0;
}

ticksync_client_t *ticksync_client_new(const ticksync_client_options_t *opt, char *err)
{
    ticksync_client_t *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, TICKSYNC_ERR_MAX, "out of memory");
        return NULL;
    }
    c->opt = *opt;
    c->opt.clock = NULL;
    c->tcp = c->udp = TS_SOCK_NONE;
    if (ts_sock_startup() < 0) {
        snprintf(err, TICKSYNC_ERR_MAX, "cannot start Winsock");
        free(c);
        return NULL;
    }
    c->backoff = BACKOFF_MIN_US;
    if (split_host_port(opt->server, c->host, c->port, err) < 0) {
        free(c);
        return NULL;
    }
    c->session = ticksync_session_new(opt->player_id, opt->token, opt->token_len, opt->clock);
    if (!c->session) {
        snprintf(err, TICKSYNC_ERR_MAX, "bad player id, token or clock settings");
        free(c);
        return NULL;
    }
    c->opt.unreachable_after = opt->unreachable_after > 0 ? opt->unreachable_after : UNREACHABLE_AFTER;
    int rc = start_connect(c, c->last_error);
    if (rc == -1) {   /* a name that does not resolve is a setting to fix; a refused connect is retried */
        snprintf(err, TICKSYNC_ERR_MAX, "%s", c->last_error);
        ticksync_client_destroy(&c);
        return NULL;
    }
    if (rc < 0)
        disconnect(c, ticksync_local_us());
    c->opt.server = NULL;   /* the caller's string: host and port are kept */
    c->opt.token = NULL;    /* the session keeps its copy */
    return c;
}

void ticksync_client_destroy(ticksync_client_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    ticksync_client_t *c = *self_p;
    disconnect(c, 0);
    ts_netthread_destroy(&c->net);
    ticksync_session_destroy(&c->session);
    free(c);
    *self_p = NULL;
}

ticksync_t *ticksync_client_clock(ticksync_client_t *self) { return ticksync_session_clock(self->session); }
ticksync_session_t *ticksync_client_session(ticksync_client_t *self) { return self->session; }
unsigned ticksync_client_connects(const ticksync_client_t *self) { return self->connects; }
const char *ticksync_client_last_error(const ticksync_client_t *self) { return self->last_error; }
const char *ticksync_client_refusal(const ticksync_client_t *self) { return self->refusal; }

ticksync_client_state_t ticksync_client_state(const ticksync_client_t *self)
{
    if (self->refused)
        return TICKSYNC_CLIENT_REFUSED;
    if (self->failures >= (unsigned) self->opt.unreachable_after)
        return TICKSYNC_CLIENT_UNREACHABLE;
    return ticksync_synced(ticksync_session_clock(self->session)) ? TICKSYNC_CLIENT_SYNCED : TICKSYNC_CLIENT_CONNECTING;
}

int ticksync_client_start(ticksync_client_t *self)
{
    if (self->net)
        return 0;
    self->net = ts_netthread_new();
    if (!self->net)
        return -1;
    if (self->tcp != TS_SOCK_NONE)
        ts_netthread_watch(self->net, self->tcp, self->udp);
    return 0;
}

static bool on_udp_path(ticksync_client_t *c)
{
    return c->udp != TS_SOCK_NONE && ticksync_session_udp_ready(c->session)
           && !ticksync_needs_reliable(ticksync_session_clock(c->session));
}

static void send_udp(ticksync_client_t *c, const uint8_t *msg, size_t len)
{
    uint8_t dgram[TS_DGRAM_MAX];
    size_t n = ticksync_session_udp_wrap(c->session, msg, len, dgram, sizeof dgram);
    if (n)
        ts_sock_send(c->udp, dgram, n);   /* UDP may lose it; the next SYNC follows */
}

/* Refusals that a reconnect would only repeat, and a replacement by another
 * login of the player, which a reconnect would fight: the client stops. */
static void check_refused(ticksync_client_t *c)
{
    int e = ticksync_session_last_error(c->session);
    bool replaced = ticksync_session_replaced(c->session);
    if (!replaced && e != TS_UNAUTHORIZED && e != TS_UNSUPPORTED_VERSION && e != TS_NOT_AUTHENTICATED)
        return;
    c->refused = true;
    snprintf(c->refusal, sizeof c->refusal, "%s", replaced ? "replaced" : ts_error_name((uint64_t) e));
    if (replaced)
        snprintf(c->last_error, sizeof c->last_error, "the gate refused the session: replaced by another login");
    else
        snprintf(c->last_error, sizeof c->last_error, "the gate refused the session: %s (%.180s)", c->refusal,
                 ticksync_session_error_text(c->session));
}

/* One server message that arrived at local time `arrived`; an answer goes
 * back the way the message came. */
static int on_message(ticksync_client_t *c, const uint8_t *msg, size_t len, int64_t arrived, bool via_udp)
{
    uint8_t reply[256];
    int errors = ticksync_session_last_error(c->session);
    int n = ticksync_session_receive_at(c->session, msg, len, arrived, ticksync_local_us(), reply, sizeof reply);
    if (n > 0 && via_udp)
        send_udp(c, reply, (size_t) n);
    else if (n > 0)
        queue_tcp(c, reply, (size_t) n);
    if (ticksync_session_state(c->session) == TICKSYNC_SESSION_WELCOMED) {
        c->backoff = BACKOFF_MIN_US;
        c->failures = 0;
        c->attempting = false;
    }
    int e = ticksync_session_last_error(c->session);
    if (e != errors || n < 0)
        snprintf(c->last_error, sizeof c->last_error, "the gate sent ERROR %s (%.180s)", ts_error_name((uint64_t) e),
                 ticksync_session_error_text(c->session));
    if (n < 0)
        check_refused(c);
    return n < 0 ? -1 : 0;
}

/* Bytes of the TCP stream that arrived at `arrived`. -1 when the
 * connection is over. */
static int on_tcp_bytes(ticksync_client_t *c, const uint8_t *buf, size_t n, int64_t arrived)
{
    size_t at = 0;
    while (at < n) {
        size_t used;
        const uint8_t *body;
        size_t body_len;
        int rc = ts_framer_feed(c->framer, buf + at, n - at, &used, &body, &body_len);
        at += used;
        if (rc < 0 || (rc == TS_FRAME_READY && on_message(c, body, body_len, arrived, false) < 0))
            return -1;
    }
    return 0;
}

static void on_datagram(ticksync_client_t *c, const uint8_t *dgram, size_t n, int64_t arrived)
{
    const uint8_t *msg;
    size_t len = ticksync_session_udp_unwrap(c->session, dgram, n, &msg);
    if (len)
        on_message(c, msg, len, arrived, true);
}

static void lost(ticksync_client_t *c, const char *why)
{
    if (!c->refused)
        snprintf(c->last_error, sizeof c->last_error, "the connection to %.200s:%s %s", c->host, c->port, why);
}

/* Reads what TCP has; ready_at, when poll said it was readable, stamps a
 * read the kernel gave no stamp. Returns -1 when the connection is over. */
static int read_tcp(ticksync_client_t *c, int64_t ready_at)
{
    uint8_t buf[8192];
    for (;;) {
        int64_t arrived;
        long n = ts_sock_recv_at(c->tcp, buf, sizeof buf, ready_at, &arrived);
        if (n == 0) {
            lost(c, "was closed by the gate");
            return -1;
        }
        if (n < 0) {
            int e = ts_sock_error();
            if (ts_sock_would_block(e) || ts_sock_interrupted(e))
                return 0;
            lost(c, ts_sock_describe(e));
            return -1;
        }
        if (on_tcp_bytes(c, buf, (size_t) n, arrived) < 0)
            return -1;
        ready_at = TS_SOCK_STAMP_NOW;   /* what the next read returns may have come after the poll */
    }
}

static void read_udp(ticksync_client_t *c, int64_t ready_at)
{
    uint8_t dgram[TS_DGRAM_MAX + 1];
    long n;
    int64_t arrived;
    while ((n = ts_sock_recv_at(c->udp, dgram, sizeof dgram, ready_at, &arrived)) > 0) {
        on_datagram(c, dgram, (size_t) n, arrived);
        ready_at = TS_SOCK_STAMP_NOW;   /* what the next read returns may have come after the poll */
    }
}

/* What the network thread read since the last call, with its stamps.
 * -1 when the TCP connection is over. */
static int take_from_thread(ticksync_client_t *c)
{
    ts_net_chunk_t chunk;
    while (ts_netthread_take(c->net, &chunk)) {
        if (chunk.kind == TS_NET_UDP)
            on_datagram(c, chunk.data, chunk.len, chunk.at);
        else if (chunk.kind == TS_NET_CLOSED) {
            lost(c, "was lost");
            return -1;
        } else if (on_tcp_bytes(c, chunk.data, chunk.len, chunk.at) < 0)
            return -1;
    }
    return 0;
}

/* Sends what is due: a SYNC, then all TCP holds (the ACKs the replies
 * just read called for leave in the same call, not a frame later). */
static void send_due(ticksync_client_t *c, int64_t now)
{
    if (c->tcp == TS_SOCK_NONE || c->connecting)
        return;
    uint8_t sync[64];
    size_t n = ticksync_session_sync(c->session, now, sync, sizeof sync);
    if (n && on_udp_path(c))
        send_udp(c, sync, n);
    else if (n)
        queue_tcp(c, sync, n);
    if (flush_tcp(c) < 0) {
        lost(c, ts_sock_describe(ts_sock_error()));
        disconnect(c, now);
    }
}

/* When run should next wake: the deadline, the next connect, or the next
 * SYNC, whichever is first. */
static int64_t next_wake(const ticksync_client_t *c, int64_t deadline)
{
    int64_t wake = deadline;
    if (c->tcp == TS_SOCK_NONE && c->retry_at < wake)
        wake = c->retry_at;
    int64_t due = ticksync_next_sync(ticksync_session_clock(c->session));
    if (c->tcp != TS_SOCK_NONE && ticksync_session_state(c->session) == TICKSYNC_SESSION_WELCOMED && due < wake)
        wake = due;
    return wake;
}

int ticksync_client_run(ticksync_client_t *c, int timeout_ms)
{
    if (c->refused)
        return -1;
    int64_t deadline = ticksync_local_us() + (int64_t) timeout_ms * 1000;
    for (;;) {
        int64_t now = ticksync_local_us();
        if (c->tcp == TS_SOCK_NONE && now >= c->retry_at) {
            if (start_connect(c, c->last_error) < 0)
                disconnect(c, now);
        }
        send_due(c, now);
        /* Only live sockets are polled (Winsock's poll has no "ignore this
         * one"); with the network thread, this thread polls only to see a
         * connect finish or TCP take what it could not. */
        ts_pollfd_t p[2];
        size_t np = 0;
        short tcp_events = (short) ((c->net ? 0 : POLLIN) | (c->connecting || c->out_len ? POLLOUT : 0));
        if (c->tcp != TS_SOCK_NONE && tcp_events)
            p[np++] = (ts_pollfd_t) { .fd = c->tcp, .events = tcp_events };
        if (c->udp != TS_SOCK_NONE && !c->net)
            p[np++] = (ts_pollfd_t) { .fd = c->udp, .events = POLLIN };
        int64_t wait = next_wake(c, deadline) - now;
        if (wait < 0)
            wait = 0;
        if (c->net && wait > 1000)
            wait = 1000;   /* the thread's reads are taken at least once a millisecond */
        if (np == 0 && wait > 0)
            ts_sleep_us(wait);
        else if (np > 0 && ts_poll(p, np, (int) ((wait + 999) / 1000)) < 0 && !ts_sock_interrupted(ts_sock_error()))
            return -1;
        now = ticksync_local_us();
        short tcp_revents = np > 0 && p[0].fd == c->tcp ? p[0].revents : 0;
        short udp_revents = np > 0 && p[np - 1].fd == c->udp ? p[np - 1].revents : 0;
        if (c->tcp != TS_SOCK_NONE && c->connecting && (tcp_revents & (POLLOUT | POLLERR | POLLHUP))) {
            c->connecting = false;
            int e = ts_sock_pending_error(c->tcp);
            if (e) {
                snprintf(c->last_error, sizeof c->last_error, "cannot connect to %.200s:%s: %s", c->host, c->port,
                         ts_sock_describe(e));
                disconnect(c, now);
            }
        }
        if (c->tcp != TS_SOCK_NONE && !c->connecting) {
            int rc = c->net ? take_from_thread(c)
                   : (tcp_revents & (POLLIN | POLLHUP | POLLERR)) ? read_tcp(c, now) : 0;
            if (rc < 0)
                disconnect(c, now);
        }
        if (c->udp != TS_SOCK_NONE && !c->net && (udp_revents & POLLIN))
            read_udp(c, now);
        if (c->tcp != TS_SOCK_NONE && ticksync_session_state(c->session) == TICKSYNC_SESSION_CLOSED)
            disconnect(c, now);
        send_due(c, ticksync_local_us());
        if (c->refused)
            return -1;
        if (now >= deadline)
            return 0;
    }
}
