/* lib/ticksync/client.c - ticksync_client_t of ticksync.h: a session on real
 * sockets. TCP always (HELLO, and exchanges until synced), UDP on the same
 * port once synced when asked for. A lost connection is made again after a
 * backoff (100 ms doubling to 2 s); the clock estimate carries on. The
 * same code runs on Winsock (sock.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datagram.h"
#include "frame.h"
#include "msg.h"
#include "sock.h"   /* POSIX sockets or Winsock */
#include "ticksync.h"

#define BACKOFF_MIN_US 100000
#define BACKOFF_MAX_US 2000000

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

static void disconnect(ticksync_client_t *c, int64_t now)
{
    if (c->tcp != TS_SOCK_NONE)
        ts_sock_close(c->tcp);
    if (c->udp != TS_SOCK_NONE)
        ts_sock_close(c->udp);
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
 * queues HELLO. Returns 0, or -1 with a reason in err. */
static int start_connect(ticksync_client_t *c, char *err)
{
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
    if (!ok) {
        snprintf(err, TICKSYNC_ERR_MAX, "cannot connect to %.200s:%s: %s", c->host, c->port, ts_sock_describe(e));
        return -1;
    }
    ticksync_session_reset(c->session);
    uint8_t hello[TS_FRAME_MAX];
    queue_tcp(c, hello, ticksync_session_hello(c->session, hello, sizeof hello));
    c->connects++;
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
    if (start_connect(c, err) < 0) {
        ticksync_client_destroy(&c);
        return NULL;
    }
    return c;
}

void ticksync_client_destroy(ticksync_client_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    ticksync_client_t *c = *self_p;
    disconnect(c, 0);
    ticksync_session_destroy(&c->session);
    free(c);
    *self_p = NULL;
}

ticksync_t *ticksync_client_clock(ticksync_client_t *self) { return ticksync_session_clock(self->session); }
ticksync_session_t *ticksync_client_session(ticksync_client_t *self) { return self->session; }
unsigned ticksync_client_connects(const ticksync_client_t *self) { return self->connects; }

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

/* One server message; an answer goes back the way the message came. */
static int on_message(ticksync_client_t *c, const uint8_t *msg, size_t len, bool via_udp)
{
    uint8_t reply[256];
    int n = ticksync_session_receive(c->session, msg, len, ticksync_local_us(), reply, sizeof reply);
    if (n > 0 && via_udp)
        send_udp(c, reply, (size_t) n);
    else if (n > 0)
        queue_tcp(c, reply, (size_t) n);
    if (ticksync_session_state(c->session) == TICKSYNC_SESSION_WELCOMED)
        c->backoff = BACKOFF_MIN_US;
    return n < 0 ? -1 : 0;
}

/* Reads what TCP has. Returns -1 when the connection is over. */
static int read_tcp(ticksync_client_t *c)
{
    uint8_t buf[8192];
    for (;;) {
        long n = ts_sock_recv(c->tcp, buf, sizeof buf);
        if (n == 0)
            return -1;
        if (n < 0) {
            int e = ts_sock_error();
            return ts_sock_would_block(e) || ts_sock_interrupted(e) ? 0 : -1;
        }
        size_t at = 0;
        while (at < (size_t) n) {
            size_t used;
            const uint8_t *body;
            size_t body_len;
            int rc = ts_framer_feed(c->framer, buf + at, (size_t) n - at, &used, &body, &body_len);
            at += used;
            if (rc < 0 || (rc == TS_FRAME_READY && on_message(c, body, body_len, false) < 0))
                return -1;
        }
    }
}

static void read_udp(ticksync_client_t *c)
{
    uint8_t dgram[TS_DGRAM_MAX + 1];
    long n;
    while ((n = ts_sock_recv(c->udp, dgram, sizeof dgram)) > 0) {
        const uint8_t *msg;
        size_t len = ticksync_session_udp_unwrap(c->session, dgram, (size_t) n, &msg);
        if (len)
            on_message(c, msg, len, true);
    }
}

/* Refusals that a reconnect would only repeat, and a replacement by another
 * login of the player, which a reconnect would fight. */
static bool refused(const ticksync_client_t *c)
{
    int e = ticksync_session_last_error(c->session);
    if (ticksync_session_replaced(c->session))
        return true;
    return e == TS_UNAUTHORIZED || e == TS_UNSUPPORTED_VERSION || e == TS_NOT_AUTHENTICATED;
}

int ticksync_client_run(ticksync_client_t *c, int timeout_ms)
{
    int64_t deadline = ticksync_local_us() + (int64_t) timeout_ms * 1000;
    for (;;) {
        int64_t now = ticksync_local_us();
        if (c->tcp == TS_SOCK_NONE && now >= c->retry_at) {
            char err[TICKSYNC_ERR_MAX];
            if (start_connect(c, err) < 0)
                disconnect(c, now);
        }
        if (c->tcp != TS_SOCK_NONE && !c->connecting) {
            uint8_t sync[64];
            size_t n = ticksync_session_sync(c->session, now, sync, sizeof sync);
            if (n && on_udp_path(c))
                send_udp(c, sync, n);
            else if (n)
                queue_tcp(c, sync, n);
            if (flush_tcp(c) < 0)
                disconnect(c, now);
        }
        int64_t wake = deadline;
        bool up = c->tcp != TS_SOCK_NONE;
        if (!up && c->retry_at < wake)
            wake = c->retry_at;
        int64_t due = ticksync_next_sync(ticksync_session_clock(c->session));
        if (up && ticksync_session_state(c->session) == TICKSYNC_SESSION_WELCOMED && due < wake)
            wake = due;
        /* only live sockets are polled: Winsock's poll has no "ignore this one" */
        ts_pollfd_t p[2] = { { .fd = c->tcp, .events = POLLIN }, { .fd = c->udp, .events = POLLIN } };
        if (up && (c->connecting || c->out_len))
            p[0].events |= POLLOUT;
        size_t np = !up ? 0 : c->udp != TS_SOCK_NONE ? 2 : 1;
        int64_t wait = wake - now;
        if (wait < 0)
            wait = 0;
        int wait_ms = (int) ((wait + 999) / 1000);
        if (np == 0)
            ts_sleep_us(wait);
        else if (ts_poll(p, np, wait_ms) < 0 && !ts_sock_interrupted(ts_sock_error()))
            return -1;
        now = ticksync_local_us();
        if (np && c->connecting && (p[0].revents & (POLLOUT | POLLERR | POLLHUP))) {
            c->connecting = false;
            if (ts_sock_pending_error(c->tcp))
                disconnect(c, now);
        }
        if (np && c->tcp != TS_SOCK_NONE && !c->connecting && (p[0].revents & (POLLIN | POLLHUP | POLLERR))
            && read_tcp(c) < 0)
            disconnect(c, now);
        if (np == 2 && c->udp != TS_SOCK_NONE && (p[1].revents & POLLIN))
            read_udp(c);
        if (c->tcp != TS_SOCK_NONE && ticksync_session_state(c->session) == TICKSYNC_SESSION_CLOSED)
            disconnect(c, now);
        if (c->tcp == TS_SOCK_NONE && refused(c))
            return -1;
        if (now >= deadline)
            return 0;
    }
}
