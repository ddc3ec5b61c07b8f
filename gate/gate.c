/* gate/gate.c - see gate.h.
 *
 * The event loop: epoll, accept, read budgets, timers, the reap at a safe
 * point. PROTOCOL.md's rules are gate/session.c's; this file is the port
 * they speak through (gate_session_port_t: a stream's connection, the UDP
 * socket, the shards, the player table).
 *
 * Every connection is registered edge-triggered for input and output. Input
 * is read until the socket is empty, stamped (t2, real and monotonic) with
 * the kernel's arrival time, and split by its transport into messages,
 * which its session answers. Output is written at once; what the socket
 * does not take is queued up to out_cap, past which the connection is
 * dropped.
 *
 * Envelopes for the scene shards are batched per turn of the loop (see
 * shards.h). The SYNC_RESULTs one batch brings a connection leave in one
 * write.
 *
 * A connection that must close (PROTOCOL says so, or BYE) first gets its
 * last words, then its write side is shut and its input discarded until the
 * peer closes or GATE_LINGER_US passes: closing at once could reset the
 * connection and destroy the ERROR before the client reads it.
 *
 * A connection dropped (its peer gone, its socket failed, its output over
 * the cap) is retired at once, GONE, and freed at the end of the loop's
 * turn (gate_conntab_reap): every function that holds one may go on using
 * it, and checks gone() instead of looking it up again. */
#include "gate.h"

#include <errno.h>
#include <netinet/tcp.h>
#include <sodium.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "clock.h"
#include "conntab.h"
#include "datagram.h"
#include "frame.h"
#include "envelope.h"
#include "epollus.h"
#include "net.h"
#include "recvstamp.h"
#include "shards.h"
#include "stats.h"
#include "session.h"
#include "signals.h"
#include "udp.h"

#define GATE_LINGER_US       1000000  /* a closing connection's grace */
#define GATE_TICK_US         20000
#define GATE_ERROR_LOG_US    10000000   /* client_errors log interval */
#define GATE_SHUTDOWN_US     2000000  /* drain time at shutdown */
#define GATE_READ_BUDGET     2        /* reads per connection per turn (32 KiB) */

/* epoll tags below any connection id (ids have a generation >= 1 on top). */
enum { TAG_LISTEN = 1, TAG_SIGNAL = 2, TAG_UDP = 3, TAG_WS_LISTEN = 4, TAG_SHARD = 16 };

struct gate_t {
    gate_options_t   opt;
    ts_log_t        *log;
    gate_stats_t     m;
    gate_session_config_t rules;      /* what every session is told */
    gate_session_port_t   port;       /* what every session speaks through */
    int              ep, listen_fd, signal_fd, udp_fd, ws_fd;
    gate_conntab_t  *conns;
    gate_shards_t   *shards;
    ts_decoder_t    *dec;             /* client messages are decoded into this */
    _Atomic int      shards_up;
    _Atomic int      shards_degraded;
    _Atomic uint64_t degraded_mask;   /* shards 0-63 degraded, for /healthz */
    gate_awaits_t   *awaits;          /* the SYNC_RESULTs due, by deadline */
    uint64_t        *held;            /* connections corked while the scene's replies are handed out */
    size_t           nheld, held_size;
    uint64_t        *closing;         /* ids of CLOSING connections */
    size_t           nclosing, closing_size;
    int64_t          next_tick;
    uint64_t        *ready;           /* connections with input left unread this turn */
    size_t           nready, ready_size;
    int64_t          next_error_log;
    uint64_t         errors_logged[TS_TOO_LARGE + 1];   /* counts at the last client_errors line */
    bool             stopping;
};

static gate_shards_unsent_fn on_unsent;
static void make_port(gate_t *g);

static int epoll_add(int ep, int fd, uint32_t events, uint64_t tag)
{
    struct epoll_event ev = { .events = events, .data.u64 = tag };
    return epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
}

gate_t *gate_new(const gate_options_t *opt, ts_log_t *log, ts_metrics_t *metrics, char *err)
{
    gate_t *g = calloc(1, sizeof *g);
    if (!g) {
        snprintf(err, TS_ERR_MAX, "out of memory");
        return NULL;
    }
    g->opt = *opt;
    g->log = log;
    g->ep = g->listen_fd = g->signal_fd = g->udp_fd = g->ws_fd = -1;
    int64_t now = ts_clock_mono_us();
    g->conns = gate_conntab_new();
    g->dec = ts_decoder_new();
    g->awaits = gate_awaits_new();
    gate_curve_t curve = { .scene_certs = opt->curve_scene_certs, .gate_cert = opt->curve_cert };
    g->shards = gate_shards_new(opt->scenes, &curve, log, now, err);
    g->ep = epoll_create1(EPOLL_CLOEXEC);
    if (!g->conns || !g->shards || !g->dec || !g->awaits || g->ep < 0 || gate_stats_init(&g->m, metrics) < 0) {
        if (g->shards)
            snprintf(err, TS_ERR_MAX, "out of memory");
        gate_destroy(&g);
        return NULL;
    }
    g->listen_fd = gate_net_listen_tcp(&opt->listen, opt->listen_len, err);
    g->signal_fd = ts_signals_fd();
    if (g->listen_fd < 0 || g->signal_fd < 0
        || epoll_add(g->ep, g->listen_fd, EPOLLIN, TAG_LISTEN) < 0
        || epoll_add(g->ep, g->signal_fd, EPOLLIN, TAG_SIGNAL) < 0) {
        if (g->listen_fd >= 0)
            snprintf(err, TS_ERR_MAX, "cannot watch signals: %s", strerror(errno));
        gate_destroy(&g);
        return NULL;
    }
    if (opt->udp && ((g->udp_fd = gate_net_bind_udp(&opt->listen, opt->listen_len, err)) < 0
                     || epoll_add(g->ep, g->udp_fd, EPOLLIN, TAG_UDP) < 0)) {
        gate_destroy(&g);
        return NULL;
    }
    if (opt->ws && ((g->ws_fd = gate_net_listen_tcp(&opt->ws_listen, opt->ws_listen_len, err)) < 0
                    || epoll_add(g->ep, g->ws_fd, EPOLLIN, TAG_WS_LISTEN) < 0)) {
        gate_destroy(&g);
        return NULL;
    }
    for (int i = 0; i < gate_shards_count(g->shards); i++)
        epoll_add(g->ep, gate_shards_fd(g->shards, i), EPOLLIN, TAG_SHARD + (uint64_t) i);
    make_port(g);
    gate_shards_on_unsent(g->shards, on_unsent, g);
    gate_shards_set_linger(g->shards, opt->batch_us);
    atomic_store(&g->shards_up, gate_shards_count(g->shards));
    return g;
}

void gate_destroy(gate_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    gate_t *g = *self_p;
    gate_conntab_destroy(&g->conns);
    ts_decoder_destroy(&g->dec);
    gate_shards_destroy(&g->shards);
    if (g->listen_fd >= 0)
        close(g->listen_fd);
    if (g->udp_fd >= 0)
        close(g->udp_fd);
    if (g->ws_fd >= 0)
        close(g->ws_fd);
    if (g->signal_fd >= 0)
        close(g->signal_fd);
    if (g->ep >= 0)
        close(g->ep);
    gate_awaits_destroy(&g->awaits);
    free(g->held);
    free(g->closing);
    free(g->ready);
    free(g);
    *self_p = NULL;
}

int gate_reachable_shards(const gate_t *self)
{
    return atomic_load(&((gate_t *) self)->shards_up);
}

int gate_degraded_shards(const gate_t *self, uint64_t *first64)
{
    *first64 = atomic_load(&((gate_t *) self)->degraded_mask);
    return atomic_load(&((gate_t *) self)->shards_degraded);
}

/* A growing list (of *size items of elem bytes, n in use) with room for
 * one more: list itself, or where it moved; NULL when out of memory (list
 * is left as it was). */
static void *room_for_one(void *list, size_t n, size_t *size, size_t elem)
{
    if (n < *size)
        return list;
    size_t grown_size = *size ? *size * 2 : 64;
    void *grown = realloc(list, grown_size * elem);
    if (grown)
        *size = grown_size;
    return grown;
}

/* Appends id to a growing list of connection ids; false when out of memory. */
static bool push_id(uint64_t **list, size_t *n, size_t *size, uint64_t id)
{
    uint64_t *room = room_for_one(*list, *n, size, sizeof *room);
    if (!room)
        return false;
    *list = room;
    (*list)[(*n)++] = id;
    return true;
}

/* ---- the ready list ------------------------------------------------------ */

/* Dropped this turn: writes and reads nothing, freed at the turn's end. */
static bool gone(const gate_conn_t *c)
{
    return gate_conn_state(c) == GATE_CONN_GONE;
}

static void ready_push(gate_t *g, gate_conn_t *c)
{
    if (gate_conn_pending(c) || !push_id(&g->ready, &g->nready, &g->ready_size, gate_conn_id(c)))
        return;   /* out of memory: the connection's next event will pick it up */
    gate_conn_set_pending(c, true);
}

static void on_readable(gate_t *g, gate_conn_t *c, bool hup);

/* One more share for each connection that had input left over. */
static void serve_ready(gate_t *g)
{
    size_t n = g->nready;   /* those waiting now; any pushed during the pass wait for the next */
    if (n == 0)
        return;
    for (size_t i = 0; i < n; i++) {   /* by index: a push may move the list */
        gate_conn_t *c = gate_conntab_get(g->conns, g->ready[i]);
        if (c && !gone(c)) {
            gate_conn_set_pending(c, false);
            on_readable(g, c, true);   /* to EAGAIN: a hang-up meanwhile raised its edge while it waited here */
        }
    }
    g->nready -= n;
    memmove(g->ready, g->ready + n, g->nready * sizeof *g->ready);
}

/* ---- the port: what sessions do, done --------------------------------- */

/* Retires c (freed at the end of this turn); its session tells its shard. */
static void drop(gate_t *g, gate_conn_t *c)
{
    if (gone(c))
        return;
    gate_conntab_retire(g->conns, gate_conn_id(c));
    ts_metric_set(g->m.connections, (int64_t) gate_conntab_count(g->conns));
    if (gate_conn_session(c))
        gate_session_end(gate_conn_session(c));
}

static void close_gracefully(gate_t *g, gate_conn_t *c)
{
    if (gate_conn_state(c) != GATE_CONN_OPEN)
        return;
    if (!push_id(&g->closing, &g->nclosing, &g->closing_size, gate_conn_id(c))) {
        drop(g, c);
        return;
    }
    gate_conn_close_after(c, ts_clock_mono_us() + GATE_LINGER_US);
}

/* A retired connection writes nothing and fails nothing (conn.h). */
static int port_send(void *ctx, void *link, const uint8_t *body, size_t len)
{
    (void) ctx;
    return gate_conn_send(link, body, len);
}

static int port_send_sync_reply(void *ctx, void *link, gate_exchange_t *x, uint64_t seq, int64_t t1, int64_t t2)
{
    (void) ctx;
    return gate_conn_send_sync_reply(link, x, seq, t1, t2);
}

static void port_send_datagram(void *ctx, const uint8_t *dgram, size_t len, const struct sockaddr_storage *to,
                               socklen_t to_len)
{
    gate_t *g = ctx;
    if (g->udp_fd >= 0)   /* UDP may drop it; the client sends the next SYNC */
        sendto(g->udp_fd, dgram, len, MSG_DONTWAIT, (const struct sockaddr *) to, to_len);
}

static void port_close(void *ctx, void *link)
{
    close_gracefully(ctx, link);
}

static void port_drop(void *ctx, void *link)
{
    drop(ctx, link);
}

/* Whether the player's shard can be told of an exchange now: it answered
 * a PING within 800 ms and ZeroMQ has a live connection to it. */
static bool port_shard_ready(void *ctx, int shard, int64_t now)
{
    gate_t *g = ctx;
    return gate_shards_up(g->shards, shard, now) && gate_shards_taking(g->shards, shard);
}

static int port_forward(void *ctx, int shard, const ts_env_t *env)
{
    gate_t *g = ctx;
    return gate_shards_send(g->shards, shard, env);
}

static void port_await(void *ctx, uint64_t id, uint64_t seq, int64_t deadline)
{
    gate_t *g = ctx;
    gate_awaits_push(g->awaits, id, seq, deadline);   /* out of memory: the slot frees itself later */
}

static gate_session_t *port_bind(void *ctx, uint64_t player_id, gate_session_t *s, int *shard)
{
    gate_t *g = ctx;
    *shard = gate_shards_route(g->shards, player_id);
    uint64_t old = gate_conntab_bind(g->conns, player_id, gate_session_id(s));
    gate_conn_t *prev = old ? gate_conntab_get(g->conns, old) : NULL;
    return prev && !gone(prev) ? gate_conn_session(prev) : NULL;
}

static void make_port(gate_t *g)
{
    g->rules = (gate_session_config_t) {
        .secret = g->opt.secret, .secret_len = g->opt.secret_len,
        .sync_rate = g->opt.sync_rate, .sync_interval_ms = g->opt.sync_interval_ms,
        .udp = g->udp_fd >= 0, .dec = g->dec, .stats = &g->m,
    };
    g->port = (gate_session_port_t) {
        .send = port_send, .send_sync_reply = port_send_sync_reply, .send_datagram = port_send_datagram,
        .close = port_close, .drop = port_drop, .shard_ready = port_shard_ready, .forward = port_forward,
        .await = port_await, .bind = port_bind, .ctx = g,
    };
}

/* An envelope whose batch the shard would not take. An OPEN or CLOSE is
 * queued again while the shard is up; otherwise it is dropped and counted,
 * and the session learns of it (a SYNC_ACK's result will not come). */
static void on_unsent(void *arg, const ts_env_t *env)
{
    gate_t *g = arg;
    /* OPEN and CLOSE carry who is online. A gate that starts with its
     * shards counts them up before ZeroMQ has connected (and a shard may
     * still refuse for a moment after): those are not lost. */
    int shard = gate_shards_route(g->shards, env->player_id);
    if ((env->kind == TS_ENV_OPEN || env->kind == TS_ENV_CLOSE)
        && gate_shards_up(g->shards, shard, ts_clock_mono_us())) {
        gate_shards_send(g->shards, shard, env);
        return;
    }
    ts_metric_add(g->m.unsent, 1);
    gate_conn_t *c = gate_conntab_get(g->conns, env->conn);
    if (c && !gone(c))
        gate_session_unsent(gate_conn_session(c), env);
}

/* ---- client input ------------------------------------------------------ */

/* The messages of one read: what the session needs besides the body. */
typedef struct {
    gate_conn_t *c;
    int64_t      t2, now;
} read_t;

static bool on_message(void *arg, const uint8_t *body, size_t len)
{
    read_t *r = arg;
    gate_session_frame(gate_conn_session(r->c), body, len, r->t2, r->now);
    return gate_conn_state(r->c) == GATE_CONN_OPEN;   /* a session that closed closed its stream */
}

static void on_bad_frame(void *arg, ts_error_t code)
{
    read_t *r = arg;
    gate_session_bad_frame(gate_conn_session(r->c), code);
}

/* A read's bytes, through c's transport to its session. */
static void feed(gate_t *g, gate_conn_t *c, const uint8_t *data, size_t len, int64_t t2, int64_t now)
{
    read_t r = { c, t2, now };
    gate_conn_input_t in = { .message = on_message, .bad_frame = on_bad_frame, .arg = &r };
    switch (gate_conn_feed(c, data, len, &in)) {
    case GATE_FEED_OK:
        break;
    case GATE_FEED_OPENED:
        ts_metric_add(g->m.ws_upgraded, 1);
        break;
    case GATE_FEED_CLOSE:
        if (gate_conn_fault(c) != GATE_WS_OK)
            ts_metric_add(g->m.ws_faults[gate_conn_fault(c)], 1);
        gate_session_close(gate_conn_session(c));   /* which closes the stream (port_close) */
        break;
    case GATE_FEED_FAILED:
        ts_metric_add(g->m.stalled, 1);
        drop(g, c);
        break;
    }
}

/* Reads until the socket is empty, or until the connection has had its
 * share of this turn (GATE_READ_BUDGET reads): then it goes on the ready
 * list and gets its next share after everyone else's, so one flooding
 * client cannot starve the rest. A read shorter than the buffer emptied the
 * socket: bytes that come later raise a new edge, so no second read is
 * spent to hear EAGAIN, unless the peer has hung up (hup), whose end of
 * file raises none. */
static void on_readable(gate_t *g, gate_conn_t *c, bool hup)
{
    uint8_t buf[16384];
    for (int reads = 0;; reads++) {
        if (reads == GATE_READ_BUDGET) {
            ready_push(g, c);
            return;
        }
        int64_t arrived, t2, now;   /* the clocks when the kernel got the bytes, however late the loop reads */
        ssize_t n = ts_recv_stamped(gate_conn_fd(c), buf, sizeof buf, NULL, NULL, &arrived);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
            drop(g, c);
            return;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return;
        if (gate_conn_state(c) == GATE_CONN_CLOSING)
            continue;   /* discarded */
        ts_arrival_clocks(arrived, &t2, &now);
        gate_conn_cork(c);   /* one write for this read's answers */
        feed(g, c, buf, (size_t) n, t2, now);
        if (gone(c))
            return;
        if (gate_conn_uncork(c) < 0) {
            drop(g, c);
            return;
        }
        if ((size_t) n < sizeof buf && !hup)
            return;
    }
}

/* Datagrams until EAGAIN, or a batch, so TCP clients get their turn. */
static void on_datagrams(gate_t *g)
{
    uint8_t buf[TS_DGRAM_MAX + 1];
    for (int i = 0; i < 256; i++) {
        struct sockaddr_storage from;
        socklen_t from_len = sizeof from;
        int64_t arrived, t2, now;
        ssize_t n = ts_recv_stamped(g->udp_fd, buf, sizeof buf, &from, &from_len, &arrived);
        if (n < 0)
            return;
        ts_arrival_clocks(arrived, &t2, &now);
        gate_conn_t *c = NULL;
        ts_msg_t m;
        gate_udp_verdict_t v = gate_udp_admit(g->conns, g->dec, buf, (size_t) n, &from, &c, &m);
        if (v != GATE_UDP_OK) {
            ts_metric_add(g->m.udp_dropped[v], 1);
            continue;
        }
        ts_metric_add(g->m.udp_in, 1);
        gate_session_datagram(gate_conn_session(c), &m, t2, now, &from, from_len);
    }
}

static void on_accept(gate_t *g, bool ws)
{
    for (;;) {
        int fd = accept4(ws ? g->ws_fd : g->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EMFILE || errno == ENFILE)
                ts_log(g->log, TS_LOG_WARN, "accept_failed", "error=\"%s\"", strerror(errno));
            return;
        }
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        ts_stamp_arrivals(fd);
        gate_transport_t transport = ws ? GATE_TRANSPORT_WS : GATE_TRANSPORT_TCP;
        gate_conn_t *c = gate_conntab_add(g->conns, fd, transport, g->opt.ws_origins, g->opt.out_cap);
        if (!c) {
            close(fd);
            continue;
        }
        /* a browser has no UDP */
        gate_session_t *s = gate_session_new(&g->rules, &g->port, c, gate_conn_id(c), !ws, ts_clock_mono_us());
        if (s)
            gate_conn_attach(c, s);
        if (!s || epoll_add(g->ep, fd, EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, gate_conn_id(c)) < 0) {
            gate_conntab_retire(g->conns, gate_conn_id(c));
            continue;
        }
        ts_metric_add(ws ? g->m.ws_accepted : g->m.accepted, 1);
        ts_metric_set(g->m.connections, (int64_t) gate_conntab_count(g->conns));
    }
}

/* ---- scene replies ----------------------------------------------------- */

/* Corks c until release_held, so the SYNC_RESULTs one batch brings a
 * connection leave in one write (they carry no time to keep exact). */
static void hold(gate_t *g, gate_conn_t *c)
{
    if (gate_conn_cork(c) && !push_id(&g->held, &g->nheld, &g->held_size, gate_conn_id(c)))
        gate_conn_uncork(c);   /* out of memory: it writes at once */
}

static void on_envelope(gate_t *g, const ts_env_t *env)
{
    gate_conn_t *c = gate_conntab_get(g->conns, env->conn);
    if (env->kind == TS_ENV_KICK) {
        gate_conn_t *bound = gate_conntab_get(g->conns, gate_conntab_player_conn(g->conns, env->player_id));
        if (bound && bound == c && !gone(c))
            gate_session_bye(gate_conn_session(c), "replaced");
        return;
    }
    if (!c || gone(c)) {
        ts_metric_add(g->m.gone, 1);
        return;
    }
    if (env->kind == TS_ENV_SYNC_RESULT) {
        if (gate_conn_state(c) == GATE_CONN_OPEN)
            hold(g, c);
        gate_session_result(gate_conn_session(c), env);
    }
}

static void release_held(gate_t *g)
{
    for (size_t i = 0; i < g->nheld; i++) {
        gate_conn_t *c = gate_conntab_get(g->conns, g->held[i]);
        if (c && !gone(c) && gate_conn_uncork(c) < 0)
            drop(g, c);
    }
    g->nheld = 0;
}

static void drain_shards(gate_t *g, int64_t now)
{
    for (int i = 0; i < gate_shards_count(g->shards); i++) {
        ts_env_t env;
        int rc;
        while ((rc = gate_shards_recv(g->shards, i, &env, now)) != 0) {
            if (rc < 0)
                ts_metric_add(g->m.bad_envelopes, 1);
            else
                on_envelope(g, &env);
        }
    }
    release_held(g);
}

/* ---- timers ------------------------------------------------------------ */

static void expire_awaiting(gate_t *g, int64_t now)
{
    uint64_t conn, seq;
    int64_t deadline;
    while (gate_awaits_pop_due(g->awaits, now, &conn, &seq, &deadline)) {
        gate_conn_t *c = gate_conntab_get(g->conns, conn);
        if (c && !gone(c))
            gate_session_expire(gate_conn_session(c), seq, deadline);
    }
}

static void expire_closing(gate_t *g, int64_t now, bool all)
{
    size_t keep = 0;
    for (size_t i = 0; i < g->nclosing; i++) {
        gate_conn_t *c = gate_conntab_get(g->conns, g->closing[i]);
        if (!c || gone(c))
            continue;
        if (all || now >= gate_conn_close_deadline(c))
            drop(g, c);
        else
            g->closing[keep++] = g->closing[i];
    }
    g->nclosing = keep;
}

/* Client errors are logged as counts per interval, never per packet. */
static void log_client_errors(gate_t *g, int64_t now)
{
    if (now < g->next_error_log)
        return;
    g->next_error_log = now + GATE_ERROR_LOG_US;
    char line[512];
    size_t used = 0;
    uint64_t total = 0;
    for (int code = 1; code <= TS_TOO_LARGE; code++) {
        uint64_t v = ts_metric_value(g->m.errors[code]), d = v - g->errors_logged[code];
        g->errors_logged[code] = v;
        total += d;
        if (d && used < sizeof line)
            used += (size_t) snprintf(line + used, sizeof line - used, " %s=%llu", ts_error_name((ts_error_t) code),
                                      (unsigned long long) d);
    }
    if (total)
        ts_log(g->log, TS_LOG_WARN, "client_errors", "interval_s=%d total=%llu%s", GATE_ERROR_LOG_US / 1000000,
               (unsigned long long) total, line);
}

static void tick(gate_t *g, int64_t now)
{
    log_client_errors(g, now);
    ts_metric_set(g->m.awaiting_depth, (int64_t) gate_awaits_len(g->awaits));
    ts_metric_set(g->m.ready_depth, (int64_t) g->nready);
    ts_metric_set(g->m.closing_depth, (int64_t) g->nclosing);
    uint64_t came_up = gate_shards_tick(g->shards, now);
    if (came_up) {   /* sessions whose OPEN the shard may have missed (gate.c's on_unsent drops it while down) */
        size_t cursor = 0;
        for (gate_conn_t *c; (c = gate_conntab_next(g->conns, &cursor));)
            gate_session_held(gate_conn_session(c), came_up);
    }
    atomic_store(&g->shards_up, gate_shards_up_count(g->shards, now));
    uint64_t mask;
    int degraded = gate_shards_degraded_count(g->shards, now, &mask);
    atomic_store(&g->shards_degraded, degraded);
    ts_metric_set(g->m.shards_up, atomic_load(&g->shards_up));
    ts_metric_set(g->m.shards_degraded, degraded);
    atomic_store(&g->degraded_mask, mask);
    expire_awaiting(g, now);
    expire_closing(g, now, false);
    g->next_tick = now + GATE_TICK_US;
}

/* ---- the loop ---------------------------------------------------------- */

static void begin_shutdown(gate_t *g)
{
    ts_log(g->log, TS_LOG_INFO, "stopping", "connections=%zu", gate_conntab_count(g->conns));
    g->stopping = true;
    epoll_ctl(g->ep, EPOLL_CTL_DEL, g->listen_fd, NULL);
    close(g->listen_fd);
    g->listen_fd = -1;
    if (g->ws_fd >= 0) {
        epoll_ctl(g->ep, EPOLL_CTL_DEL, g->ws_fd, NULL);
        close(g->ws_fd);
        g->ws_fd = -1;
    }
    size_t cursor = 0;
    for (gate_conn_t *c; (c = gate_conntab_next(g->conns, &cursor));)
        gate_session_bye(gate_conn_session(c), "shutdown");   /* a closed session says nothing */
}

static void on_event(gate_t *g, const struct epoll_event *ev)
{
    uint64_t tag = ev->data.u64;
    if (tag == TAG_LISTEN || tag == TAG_WS_LISTEN) {
        on_accept(g, tag == TAG_WS_LISTEN);
    } else if (tag == TAG_UDP) {
        on_datagrams(g);
    } else if (tag == TAG_SIGNAL) {
        struct signalfd_siginfo si;
        while (read(g->signal_fd, &si, sizeof si) == sizeof si)
            if (!g->stopping)
                begin_shutdown(g);
    } else if (tag >= (1ULL << 32)) {
        gate_conn_t *c = gate_conntab_get(g->conns, tag);
        if (!c || gone(c))
            return;
        if ((ev->events & EPOLLOUT) && gate_conn_flush(c) < 0) {
            drop(g, c);
            return;
        }
        /* a connection on the ready list reads in its turn there, not twice a turn */
        bool hup = ev->events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR);
        if ((hup || (ev->events & EPOLLIN)) && !gate_conn_pending(c))
            on_readable(g, c, hup);
    }
}

int gate_run(gate_t *g)
{
    ts_log(g->log, TS_LOG_INFO, "start", "shards=%d open_mode=%s sync_rate=%g",
           gate_shards_count(g->shards), g->opt.secret ? "false" : "true", g->opt.sync_rate);
    int64_t stop_by = 0;
    struct epoll_event events[256];
    for (;;) {
        int64_t now = ts_clock_mono_us(), wake = g->next_tick, due = gate_shards_due(g->shards);
        if (due < wake)
            wake = due;
        int n = ts_epoll_wait_us(g->ep, events, 256, g->nready || wake <= now ? 0 : wake - now);
        for (int i = 0; i < n; i++)
            on_event(g, &events[i]);
        serve_ready(g);
        now = ts_clock_mono_us();
        if (now >= g->next_tick)
            tick(g, now);
        /* the batches that have waited long enough leave, before the
         * replies are read: a send may take the ZMQ_FD's readiness */
        gate_shards_flush(g->shards, now);
        drain_shards(g, now);   /* what this queues leaves next turn, at once */
        gate_conntab_reap(g->conns);   /* the safe point: no connection is held past here */
        if (g->stopping) {
            if (!stop_by)
                stop_by = now + GATE_SHUTDOWN_US;
            if (gate_conntab_count(g->conns) == 0 || now >= stop_by)
                break;
        }
    }
    expire_closing(g, 0, true);
    gate_conntab_reap(g->conns);
    gate_shards_flush(g->shards, INT64_MAX);   /* the CLOSEs */
    ts_log(g->log, TS_LOG_INFO, "stop", NULL);
    return 0;
}
