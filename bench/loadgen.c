/* bench/loadgen.c - load for the benchmarks: many raw PROTOCOL.md clients
 * on one epoll loop.
 *
 *   ticksync-loadgen --target 127.0.0.1:7700 --conns 200 --window 4 --duration-s 10
 *       complete two-sided exchanges as fast as they go: each connection
 *       keeps `window` exchanges in flight (SYNC, SYNC_REPLY, SYNC_ACK at
 *       once, SYNC_RESULT), and the summary gives exchanges per second and
 *       the percentiles of t3 - t2 read off every SYNC_REPLY.
 *   --rate R      paces SYNCs to R per second in all (window 1), for the
 *                 time-inside-the-server percentiles at a given load. They
 *                 arrive as a Poisson process (exponential gaps, a fixed
 *                 seed), as SYNCs from many independent clients do, each
 *                 sent when due to the microsecond (lib/epollus, 1 µs
 *                 timer slack) on a connection with no exchange in flight.
 *   --echo        the same SYNC frames against bench/echo: frames back per second.
 *   --hold-s S    log in, one exchange each, then hold every connection S
 *                 seconds (the concurrency benchmark reads RSS meanwhile).
 *   --sources A,B source addresses to spread connections over (127.0.0.x),
 *                 since one address has ~28k ephemeral ports.
 *   --ws          speak WebSocket to the gate's --ws-listen (wslay's client
 *                 end, masked frames): the handshake, then each message as
 *                 one binary frame; the rest as above. As the gate does,
 *                 frames go out through wslay's frame API, straight into
 *                 the connection's output, and come in with wslay's
 *                 buffering off: no allocation a message, so the client's
 *                 own cost on the shared cores is little more than TCP's.
 *   --percentiles FILE  writes t3 - t2 at percentiles from the median to 99.99
 *                 (one "percentile 1/(1-p) microseconds" line each), for
 *                 a latency-by-percentile plot.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>
#include <wslay/wslay.h>

#include "addr.h"
#include "clock.h"
#include "config.h"
#include "epollus.h"
#include "frame.h"
#include "msg.h"
#include "prng.h"

static const ts_setting_t settings[] = {
    { "target", TS_SET_STR, "127.0.0.1:7700", "gate (or echo) address, HOST:PORT", 0, 0 },
    { "conns", TS_SET_INT, "100", "connections", 1, 2000000 },
    { "window", TS_SET_INT, "4", "exchanges in flight per connection", 1, 30 },
    { "duration-s", TS_SET_INT, "10", "seconds of measurement", 1, 100000 },
    { "warmup-s", TS_SET_INT, "1", "seconds before measuring", 0, 1000 },
    { "rate", TS_SET_INT, "0", "paced SYNCs per second in all (0: as fast as possible)", 0, 100000000 },
    { "echo", TS_SET_BOOL, "false", "target is bench/echo: count frames back", 0, 0 },
    { "hold-s", TS_SET_INT, "0", "log in, one exchange each, then hold the connections this long", 0, 100000 },
    { "first-player", TS_SET_INT, "1", "player id of the first connection", 1, 1L << 62 },
    { "sources", TS_SET_STR, "127.0.0.1", "source addresses, comma-separated", 0, 0 },
    { "exchanges", TS_SET_INT, "0", "stop after this many exchanges (or frames back with --echo); 0: by time", 0, 1L << 40 },
    { "json", TS_SET_BOOL, "false", "summary as JSON", 0, 0 },
    { "ws", TS_SET_BOOL, "false", "speak WebSocket (the gate's --ws-listen) instead of TCP frames", 0, 0 },
    { "percentiles", TS_SET_STR, "", "write t3-t2 by percentile to this file", 0, 0 },
};

typedef struct {
    int          fd;
    ts_framer_t *framer;
    uint64_t     player, next_seq;
    int          inflight;
    bool         welcomed, idle;
    uint8_t      out[2048];
    size_t       out_len;
    wslay_event_context_ptr ws;   /* --ws: the WebSocket client end: frames in, control frames out */
    wslay_frame_context_ptr frames_out;   /* data frames out, masked, written into out */
    uint8_t      msg[256];        /* a message whose frame came in pieces, gathered */
    size_t       msg_len;
    bool         whole;           /* this message was handed on from one piece */
    uint64_t     frame_len;       /* its frame's payload */
    bool         control;         /* the frame coming in is a control frame */
    bool         upgraded;        /* the 101 has been read */
    size_t       head_seen;       /* bytes of the 101's head read so far */
    const uint8_t *in;            /* this read's bytes not yet given to wslay */
    size_t       in_len;
} conn_t;

typedef struct {
    conn_t   *c;
    int       n, ep, window;
    bool      echo, measuring;
    uint64_t  exchanges, frames, errors;
    uint64_t *inside;          /* t3 - t2 histogram, 1 µs buckets up to 100 ms */
    int      *idle;            /* paced mode: connections ready for a SYNC */
    int       nidle;
    double    rate, next_due;  /* paced mode: SYNCs per µs, and when the next is due (monotonic µs) */
    uint64_t  rng;
} lg_t;

#define INSIDE_MAX 100000

static lg_t *the_lg;   /* for wslay's callbacks, whose user data is a connection's index */
static void on_frame(lg_t *g, int i, const uint8_t *body, size_t len);

/* Appends to the connection's output; false when it is full. */
static bool ws_out(conn_t *c, const uint8_t *data, size_t len)
{
    if (c->out_len + len > sizeof c->out)
        return false;
    memcpy(c->out + c->out_len, data, len);
    c->out_len += len;
    return true;
}

static ssize_t ws_send_cb(wslay_event_context_ptr ctx, const uint8_t *data, size_t len, int flags, void *arg)
{
    (void) flags;
    if (!ws_out(&the_lg->c[(intptr_t) arg], data, len)) {
        wslay_event_set_error(ctx, WSLAY_ERR_WOULDBLOCK);
        return -1;
    }
    return (ssize_t) len;
}

static ssize_t ws_frame_send_cb(const uint8_t *data, size_t len, int flags, void *arg)
{
    (void) flags;
    return ws_out(&the_lg->c[(intptr_t) arg], data, len) ? (ssize_t) len : -1;
}

static ssize_t ws_recv_cb(wslay_event_context_ptr ctx, uint8_t *buf, size_t len, int flags, void *arg)
{
    (void) flags;
    conn_t *c = &the_lg->c[(intptr_t) arg];
    if (c->in_len == 0) {
        wslay_event_set_error(ctx, WSLAY_ERR_WOULDBLOCK);
        return -1;
    }
    size_t n = len < c->in_len ? len : c->in_len;
    memcpy(buf, c->in, n);
    c->in += n;
    c->in_len -= n;
    return (ssize_t) n;
}

static void ws_mask(uint8_t *buf, size_t len)
{
    for (size_t i = 0; i < len; i++)
        buf[i] = (uint8_t) ts_prng_next(&the_lg->rng);
}

static int ws_mask_cb(wslay_event_context_ptr ctx, uint8_t *buf, size_t len, void *arg)
{
    (void) ctx, (void) arg;
    ws_mask(buf, len);
    return 0;
}

static int ws_frame_mask_cb(uint8_t *buf, size_t len, void *arg)
{
    (void) arg;
    ws_mask(buf, len);
    return 0;
}

/* A piece of a data frame's payload: handed on when it is the whole
 * message (the gate sends each in one frame), else gathered. */
static void ws_chunk_cb(wslay_event_context_ptr ctx, const struct wslay_event_on_frame_recv_chunk_arg *a, void *arg)
{
    (void) ctx;
    conn_t *c = &the_lg->c[(intptr_t) arg];
    if (c->control)
        return;   /* wslay gathers a control frame's own */
    if (c->msg_len == 0 && !c->whole && a->data_length == c->frame_len) {
        c->whole = true;
        on_frame(the_lg, (int) (intptr_t) arg, a->data, a->data_length);
    } else if (c->msg_len + a->data_length <= sizeof c->msg) {
        memcpy(c->msg + c->msg_len, a->data, a->data_length);
        c->msg_len += a->data_length;
    } else {
        the_lg->errors++;
    }
}

static void ws_start_cb(wslay_event_context_ptr ctx, const struct wslay_event_on_frame_recv_start_arg *a, void *arg)
{
    (void) ctx;
    conn_t *c = &the_lg->c[(intptr_t) arg];
    c->control = a->opcode >= WSLAY_CONNECTION_CLOSE;
    if (a->opcode == WSLAY_BINARY_FRAME) {
        c->frame_len = a->payload_length;
        c->msg_len = 0;
        c->whole = false;
    }
}

/* A message's end (with buffering off, the body is what came in pieces). */
static void ws_msg_cb(wslay_event_context_ptr ctx, const struct wslay_event_on_msg_recv_arg *a, void *arg)
{
    (void) ctx;
    conn_t *c = &the_lg->c[(intptr_t) arg];
    if (a->opcode == WSLAY_BINARY_FRAME && !c->whole)
        on_frame(the_lg, (int) (intptr_t) arg, c->msg, c->msg_len);
}

static void queue_msg(lg_t *g, conn_t *c, const ts_msg_t *m)
{
    uint8_t body[256];
    size_t n = ts_msg_encode(m, body, sizeof body);
    if (c->ws) {
        struct wslay_frame_iocb frame = { .fin = 1, .opcode = WSLAY_BINARY_FRAME, .mask = 1, .payload_length = n,
                                          .data = body, .data_length = n };
        if (!n || wslay_frame_send(c->frames_out, &frame) != (ssize_t) n)
            g->errors++;
        return;
    }
    if (!n || c->out_len + TS_FRAME_HEADER + n > sizeof c->out) {
        g->errors++;
        return;
    }
    ts_frame_put_header(c->out + c->out_len, (uint32_t) n);
    memcpy(c->out + c->out_len + TS_FRAME_HEADER, body, n);
    c->out_len += TS_FRAME_HEADER + n;
}

static void flush_out(conn_t *c)
{
    size_t done = 0;
    while (done < c->out_len) {
        ssize_t w = send(c->fd, c->out + done, c->out_len - done, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w <= 0)
            break;
        done += (size_t) w;
    }
    memmove(c->out, c->out + done, c->out_len - done);
    c->out_len -= done;
}

static void send_sync(lg_t *g, conn_t *c)
{
    ts_msg_t m = { .type = TS_SYNC, .seq = c->next_seq++ };
    m.u.sync.t1 = ts_clock_mono_us();
    queue_msg(g, c, &m);
    c->inflight++;
}

static void on_frame(lg_t *g, int i, const uint8_t *body, size_t len)
{
    conn_t *c = &g->c[i];
    if (g->echo) {
        if (g->measuring)
            g->frames++;
        send_sync(g, c);   /* bounce the next one */
        return;
    }
    ts_msg_t m;
    if (ts_msg_decode(body, len, TS_FROM_SERVER, &m) != TS_OK) {
        g->errors++;
        return;
    }
    if (m.type == TS_WELCOME) {
        c->welcomed = true;
        if (g->idle)
            g->idle[g->nidle++] = i;
        else
            for (int k = 0; k < g->window; k++)
                send_sync(g, c);
    } else if (m.type == TS_SYNC_REPLY) {
        if (g->measuring) {
            int64_t inside = m.u.sync_reply.t3 - m.u.sync_reply.t2;
            g->inside[inside < 0 ? 0 : inside >= INSIDE_MAX ? INSIDE_MAX - 1 : inside]++;
        }
        ts_msg_t ack = { .type = TS_SYNC_ACK, .seq = m.seq };
        ack.u.sync_ack.t4 = ack.u.sync_ack.t5 = ts_clock_mono_us();
        queue_msg(g, c, &ack);
    } else if (m.type == TS_SYNC_RESULT) {
        c->inflight--;
        if (g->measuring)
            g->exchanges++;
        if (g->idle)
            g->idle[g->nidle++] = i;
        else
            send_sync(g, c);
    } else if (m.type == TS_ERROR) {
        g->errors++;
        c->inflight--;
        if (g->idle)
            g->idle[g->nidle++] = i;
        else
            send_sync(g, c);
    }
}

/* Paced mode: the SYNCs due by now, each on an idle connection (one due
 * while none is idle goes when one is), the next due after an exponential
 * gap. */
static void release_due(lg_t *g, int64_t now)
{
    while (g->next_due <= (double) now && g->nidle > 0) {
        conn_t *c = &g->c[g->idle[--g->nidle]];
        send_sync(g, c);
        flush_out(c);
        g->next_due += -log(1.0 - ts_prng_uniform(&g->rng)) / g->rate;
    }
}

/* One read per event: epoll is level-triggered here, so whatever is left
 * is reported again, and no read is spent to hear EAGAIN. */
static void on_readable(lg_t *g, int i)
{
    conn_t *c = &g->c[i];
    uint8_t buf[16384];
    ssize_t n = recv(c->fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n > 0 && c->ws) {
        size_t at = 0;
        while (!c->upgraded && at < (size_t) n) {   /* the 101's head: up to its blank line */
            static const char blank[] = "\r\n\r\n";
            c->head_seen = buf[at++] == (uint8_t) blank[c->head_seen % 4] ? c->head_seen + 1
                         : buf[at - 1] == '\r' ? 1 : 0;
            c->upgraded = c->head_seen == 4;
        }
        c->in = buf + at;
        c->in_len = (size_t) n - at;
        if (c->upgraded && (wslay_event_recv(c->ws) != 0 || wslay_event_send(c->ws) != 0))
            g->errors++;
    } else if (n > 0) {
        for (size_t at = 0; at < (size_t) n;) {
            size_t used, len;
            const uint8_t *body;
            int rc = ts_framer_feed(c->framer, buf + at, (size_t) n - at, &used, &body, &len);
            at += used;
            if (rc < 0) {
                g->errors++;
                return;
            }
            if (rc == TS_FRAME_READY)
                on_frame(g, i, body, len);
        }
    } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
        g->errors++;   /* the gate closed it: out of the loop, or it would spin */
        epoll_ctl(g->ep, EPOLL_CTL_DEL, c->fd, NULL);
        return;
    }
    flush_out(c);
}

static int open_conns(lg_t *g, const ts_config_t *cfg)
{
    struct sockaddr_storage target;
    socklen_t tlen;
    char err[TS_ERR_MAX];
    if (ts_addr_parse(ts_config_str(cfg, "target"), &target, &tlen, err) < 0) {
        fprintf(stderr, "ticksync-loadgen: %s\n", err);
        return -1;
    }
    char sources[1024];
    snprintf(sources, sizeof sources, "%s", ts_config_str(cfg, "sources"));
    struct in_addr src[64];
    int nsrc = 0;
    for (char *save = NULL, *s = strtok_r(sources, ",", &save); s && nsrc < 64; s = strtok_r(NULL, ",", &save))
        if (inet_pton(AF_INET, s, &src[nsrc]) == 1)
            nsrc++;
    uint64_t first = (uint64_t) ts_config_int(cfg, "first-player");
    for (int i = 0; i < g->n; i++) {
        conn_t *c = &g->c[i];
        c->fd = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in from = { .sin_family = AF_INET, .sin_addr = src[i % (nsrc ? nsrc : 1)] };
        int one = 1;
        setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        /* the port is chosen by connect, for the whole address pair: bind
         * alone would want one no socket of the address holds, and search
         * past every one a run before left in TIME_WAIT */
        setsockopt(c->fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
        if (c->fd < 0 || (nsrc && bind(c->fd, (struct sockaddr *) &from, sizeof from) < 0)
            || connect(c->fd, (struct sockaddr *) &target, tlen) < 0) {
            fprintf(stderr, "ticksync-loadgen: connection %d: %s\n", i, strerror(errno));
            return -1;
        }
        c->framer = ts_framer_new();
        c->player = first + (uint64_t) i;
        c->next_seq = 1;
        if (ts_config_bool(cfg, "ws")) {   /* the handshake first; the frames may follow it at once */
            struct wslay_event_callbacks cb = { .recv_callback = ws_recv_cb, .send_callback = ws_send_cb,
                                                .genmask_callback = ws_mask_cb, .on_frame_recv_start_callback = ws_start_cb,
                                                .on_frame_recv_chunk_callback = ws_chunk_cb,
                                                .on_msg_recv_callback = ws_msg_cb };
            struct wslay_frame_callbacks out = { .send_callback = ws_frame_send_cb, .genmask_callback = ws_frame_mask_cb };
            if (wslay_event_context_client_init(&c->ws, &cb, (void *) (intptr_t) i) != 0
                || wslay_frame_context_init(&c->frames_out, &out, (void *) (intptr_t) i) != 0)
                return -1;
            wslay_event_config_set_no_buffering(c->ws, 1);
            c->out_len = (size_t) snprintf((char *) c->out, sizeof c->out,
                                           "GET / HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\n"
                                           "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                                           "Sec-WebSocket-Version: 13\r\n\r\n", ts_config_str(cfg, "target"));
        }
        struct epoll_event ev = { .events = EPOLLIN, .data.u32 = (uint32_t) i };
        epoll_ctl(g->ep, EPOLL_CTL_ADD, c->fd, &ev);
        if (g->echo) {
            for (int k = 0; k < g->window; k++)
                send_sync(g, c);
        } else {
            ts_msg_t h = { .type = TS_HELLO };
            h.u.hello.version = 1;
            h.u.hello.player_id = c->player;
            queue_msg(g, c, &h);
        }
        flush_out(c);
    }
    return 0;
}

static double pct_inside(const lg_t *g, double p)
{
    uint64_t total = 0, seen = 0;
    for (int i = 0; i < INSIDE_MAX; i++)
        total += g->inside[i];
    if (!total)
        return 0;
    uint64_t rank = (uint64_t) ceil(p / 100 * (double) total);
    for (int i = 0; i < INSIDE_MAX; i++)
        if ((seen += g->inside[i]) >= rank)
            return i;
    return INSIDE_MAX;
}

/* t3 - t2 at percentiles that crowd toward the tail: 1 - p halves each
 * step, from the median to 99.99. */
static int write_percentiles(const lg_t *g, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "# percentile 1/(1-p) t3-t2_us\n");
    for (double tail = 0.5; tail >= 1e-4 * 0.999; tail /= 2)
        fprintf(f, "%.4f %.0f %.0f\n", 100 * (1 - tail), 1 / tail, pct_inside(g, 100 * (1 - tail)));
    fprintf(f, "99.9900 10000 %.0f\n", pct_inside(g, 99.99));
    return fclose(f);
}

int main(int argc, char **argv)
{
    ts_config_t *cfg = ts_config_new("ticksync-loadgen", "[options]", "Load for the ticksync benchmarks.", settings,
                                     sizeof settings / sizeof settings[0]);
    ts_config_rc_t rc = ts_config_load(cfg, argc, argv);
    if (rc != TS_CONFIG_OK) {
        ts_config_destroy(&cfg);
        return rc == TS_CONFIG_EXIT ? 0 : 2;
    }
    struct rlimit r;
    if (getrlimit(RLIMIT_NOFILE, &r) == 0) {
        r.rlim_cur = r.rlim_max;
        setrlimit(RLIMIT_NOFILE, &r);
    }
    static lg_t g;   /* static: wslay's callbacks reach it through the_lg */
    g = (lg_t) { .n = (int) ts_config_int(cfg, "conns"), .window = (int) ts_config_int(cfg, "window"),
                 .echo = ts_config_bool(cfg, "echo") };
    long rate = ts_config_int(cfg, "rate"), hold = ts_config_int(cfg, "hold-s");
    uint64_t stop_after = (uint64_t) ts_config_int(cfg, "exchanges");
    g.c = calloc((size_t) g.n, sizeof *g.c);
    g.inside = calloc(INSIDE_MAX, sizeof *g.inside);
    if (rate > 0 || hold > 0)
        g.idle = calloc((size_t) g.n, sizeof *g.idle);
    g.ep = epoll_create1(0);
    the_lg = &g;
    g.rng = 0x7469636b73796e63ULL;
    if (!g.c || !g.inside || open_conns(&g, cfg) < 0)
        return 1;
    int64_t start = ts_clock_mono_us(), warm = start + (stop_after ? 0 : ts_config_int(cfg, "warmup-s") * 1000000);
    int64_t end = warm + (hold > 0 ? hold : ts_config_int(cfg, "duration-s")) * 1000000, measured_from = 0;
    g.rate = (double) rate / 1e6;
    g.rng = 0x7469636b73796e63ULL;
    prctl(PR_SET_TIMERSLACK, 1000UL);   /* wake when a SYNC is due, not up to 50 µs later */
    struct epoll_event evs[512];
    for (int64_t now = start; now < end || stop_after; now = ts_clock_mono_us()) {
        if (stop_after && (g.echo ? g.frames : g.exchanges) >= stop_after)
            break;
        if (!g.measuring && now >= warm) {
            g.measuring = true;
            measured_from = now;
        }
        bool paced = rate > 0 && g.measuring;
        if (paced) {
            if (g.next_due == 0)
                g.next_due = (double) now;
            release_due(&g, now);
        } else if (hold > 0) {   /* one exchange each, then quiet */
            while (g.nidle > 0) {
                conn_t *c = &g.c[g.idle[--g.nidle]];
                if (!c->idle) {
                    c->idle = true;
                    send_sync(&g, c);
                    flush_out(c);
                }
            }
        }
        int64_t wait_us = rate > 0 ? 1000 : 50000;
        if (paced && g.nidle > 0)
            wait_us = g.next_due <= (double) now ? 0 : (int64_t) (g.next_due - (double) now);
        int n = ts_epoll_wait_us(g.ep, evs, 512, wait_us);
        for (int i = 0; i < n; i++) {
            on_readable(&g, (int) evs[i].data.u32);
            if (paced)
                release_due(&g, ts_clock_mono_us());   /* between replies too, not in a clump after them */
        }
    }
    double secs = (double) (ts_clock_mono_us() - measured_from) / 1e6;
    int welcomed = 0;
    for (int i = 0; i < g.n; i++)
        welcomed += g.c[i].welcomed;
    json_t *out = json_pack("{s:i,s:i,s:i,s:f,s:f,s:f,s:I,s:{s:f,s:f,s:f,s:f}}", "conns", g.n, "welcomed", welcomed,
                            "window", g.window, "seconds", secs, "exchanges_per_s", (double) g.exchanges / secs,
                            "frames_per_s", (double) g.frames / secs, "errors", (json_int_t) g.errors,
                            "inside_us", "p50", pct_inside(&g, 50), "p90", pct_inside(&g, 90), "p99", pct_inside(&g, 99),
                            "p999", pct_inside(&g, 99.9));
    if (ts_config_bool(cfg, "json")) {
        char *s = json_dumps(out, JSON_COMPACT);
        puts(s);
        free(s);
    } else if (g.echo) {
        printf("echo: %d conns, window %d: %.0f frames back per second\n", g.n, g.window, (double) g.frames / secs);
    } else {
        char how[48];
        if (rate > 0)
            snprintf(how, sizeof how, "paced at %ld/s", rate);
        else
            snprintf(how, sizeof how, "window %d", g.window);
        printf("ticksync: %d conns (%d welcomed), %s: %.0f exchanges/s; t3-t2 p50 %.0f p90 %.0f p99 %.0f "
               "p99.9 %.0f us; %llu errors\n",
               g.n, welcomed, how, (double) g.exchanges / secs, pct_inside(&g, 50), pct_inside(&g, 90),
               pct_inside(&g, 99), pct_inside(&g, 99.9), (unsigned long long) g.errors);
    }
    json_decref(out);
    const char *pfile = ts_config_str(cfg, "percentiles");
    if (*pfile && write_percentiles(&g, pfile) < 0)
        fprintf(stderr, "ticksync-loadgen: %s: %s\n", pfile, strerror(errno));
    for (int i = 0; i < g.n; i++) {
        close(g.c[i].fd);
        ts_framer_destroy(&g.c[i].framer);
        if (g.c[i].ws)
            wslay_event_context_free(g.c[i].ws);
        if (g.c[i].frames_out)
            wslay_frame_context_free(g.c[i].frames_out);
    }
    free(g.c);
    free(g.inside);
    free(g.idle);
    ts_config_destroy(&cfg);
    return 0;
}
