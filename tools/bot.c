/* tools/bot.c - ticksync-bot: many players at once through libticksync,
 * with known network delays injected in user space.
 *
 * Each player is a ticksync_session_t on its own TCP connection (and UDP
 * socket, once synced). Every message a player sends waits out an injected
 * up delay before it reaches the socket, and every message it receives
 * waits out a down delay before the session sees it: base delays per
 * player and direction, plus jitter per message, plus loss. Each player's
 * clock has its own offset and drift. Because the bot knows each delay it
 * applied (kept as it really was: from the kernel's arrival stamp, or the
 * message's making, to its delivery, so a late loop does not skew it), it
 * knows the truth: the round trip the server should measure for an
 * exchange is the down delay of its SYNC_REPLY plus the up delay of its
 * SYNC_ACK; the server time the library should show is this host's real
 * clock, which is the gate's. The summary compares both.
 *
 * A player whose connection drops reconnects as the library's client does:
 * after a backoff of 100 ms, doubling to 2 s, reset by a WELCOME; a player
 * the gate refused (BYE, or an error that closes) stays out. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "config.h"
#include "datagram.h"
#include "delayq.h"
#include "err.h"
#include "frame.h"
#include "msg.h"
#include "prng.h"
#include "recvstamp.h"
#include "ticksync.h"
#include "token.h"

#define SEQ_RING      64
#define CONVERGE_US   2000000   /* offset errors count once a player has been synced this long */
#define SAMPLE_US     250000    /* how often each player's shown time is checked */
#define BACKOFF_MIN_US 100000   /* as lib/ticksync/client.c */
#define BACKOFF_MAX_US 2000000

enum { OUT_TCP, OUT_UDP, IN_TCP, IN_UDP };
/* A queued message's kind carries the connection it belongs to (the low 6
 * bits of the player's generation above the 2 bits of direction and
 * transport): one queued for a connection since dropped is not delivered
 * on the next. */
#define KIND(base, gen) ((uint8_t) ((base) | ((gen) & 0x3f) << 2))

static const ts_setting_t settings[] = {
    { "gate", TS_SET_STR, "127.0.0.1:7700", "the gate's client address, HOST:PORT (TCP and UDP)", 0, 0 },
    { "players", TS_SET_INT, "100", "players to play", 1, 200000 },
    { "first-player", TS_SET_INT, "1", "player id of the first player; the rest follow", 1, 1L << 62 },
    { "duration-s", TS_SET_INT, "10", "seconds to run (0: until SIGINT or SIGTERM)", 0, 1000000 },
    { "up-ms", TS_SET_STR, "10-40", "base one-way delay client to server, ms: A, or A-B drawn per player", 0, 0 },
    { "down-ms", TS_SET_STR, "10-40", "base one-way delay server to client, ms: A or A-B", 0, 0 },
    { "jitter-ms", TS_SET_STR, "1", "scale of the per-message jitter, ms", 0, 0 },
    { "jitter", TS_SET_STR, "uniform", "jitter distribution: uniform, exponential or pareto (heavy tail)", 0, 0 },
    { "loss", TS_SET_STR, "0", "probability that an exchange message is lost, 0..1", 0, 0 },
    { "offset-ms", TS_SET_STR, "-5000-5000", "client clock offset from the server's, ms: A or A-B", 0, 0 },
    { "drift-ppm", TS_SET_STR, "-100-100", "client clock drift, ppm: A or A-B", 0, 0 },
    { "speed", TS_SET_STR, "1", "every client's clock runs this many times as fast as the server's (1.05: a 5% speed hack)", 0, 0 },
    { "udp", TS_SET_BOOL, "true", "move exchanges to UDP once synced", 0, 0 },
    { "secret-file", TS_SET_STR, NULL, "the cluster's token secret, to log in with real tokens", 0, 0 },
    { "seed", TS_SET_INT, "1", "random seed: the same seed gives the same players", 0, 1L << 62 },
    { "ticks", TS_SET_INT, "0", "also play a fixed-tick game at this many Hz: stamp inputs with ticksync_input_tick "
      "and count those that reach the server before its tick (0: off)", 0, 1000 },
    { "json", TS_SET_BOOL, "false", "print the summary as JSON", 0, 0 },
    { "quiet", TS_SET_BOOL, "false", "no progress lines on stderr", 0, 0 },
};

typedef struct { double lo, hi; } range_t;

typedef struct {
    ticksync_session_t *s;
    uint64_t            id;
    int                 tcp, udp;
    ts_framer_t        *framer;
    double              up_us, down_us, drift;
    int64_t             offset_us;
    int64_t             tcp_up_last, tcp_down_last;   /* TCP keeps order: no overtaking */
    int64_t             reply_down[SEQ_RING], ack_up[SEQ_RING];
    uint64_t            ack_seq[SEQ_RING];
    int64_t             synced_since, next_check, last_shown;
    bool                dead;
    int64_t             retry_at, backoff;   /* dead: when to connect again (0: never, refused) */
    uint8_t             gen;                 /* connections made: see KIND */
} player_t;

typedef struct {
    double *v;
    size_t  n, cap;
} series_t;

typedef struct {
    player_t  *p;
    int        n;
    delayq_t  *q;
    int        ep;
    uint64_t   rng;
    double     jitter_us, loss;
    int        jitter_kind;
    bool       udp;
    int64_t    start;
    uint64_t   syncs, replies, results, invalid_results, backwards, disconnects, reconnects, refused, lost;
    const struct addrinfo *gate;
    int64_t    tick_us;                    /* --ticks: the server's tick, 0: off */
    uint64_t   inputs, inputs_in_time;
    series_t   rtt_err, offset_err, asym, excess;
} bot_t;

static volatile sig_atomic_t stop_now;

static void on_signal(int sig)
{
    (void) sig;
    stop_now = 1;
}

/* ---- randomness and ranges ---------------------------------------------------- */

static double uniform(bot_t *b)
{
    return ts_prng_uniform(&b->rng);
}

static double draw(bot_t *b, range_t r)
{
    return r.lo + (r.hi - r.lo) * uniform(b);
}

static int64_t jitter(bot_t *b)
{
    double u = uniform(b), j;
    switch (b->jitter_kind) {
    case 1: j = -b->jitter_us * log(1 - u); break;
    case 2: j = b->jitter_us * (pow(1 - u, -1 / 1.5) - 1); break;
    default: j = b->jitter_us * u; break;
    }
    return (int64_t) (j < 1e6 ? j : 1e6);
}

/* "A" or "A-B" (A may be negative: "-5-5"). */
static int parse_range(const char *text, range_t *r)
{
    char *end;
    r->lo = strtod(text, &end);
    if (end == text)
        return -1;
    r->hi = r->lo;
    if (*end == '-') {
        const char *second = end + 1;
        r->hi = strtod(second, &end);
        if (end == second)
            return -1;
    }
    return *end == '\0' && r->hi >= r->lo ? 0 : -1;
}

static void series_add(series_t *s, double v)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 4096;
        double *grown = realloc(s->v, cap * sizeof *grown);
        if (!grown)
            return;
        s->v = grown;
        s->cap = cap;
    }
    s->v[s->n++] = v;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

/* Percentile p (0..100] of sorted values, nearest rank. */
static double pct(const series_t *s, double p)
{
    if (!s->n)
        return 0;
    double rank = ceil(p / 100 * (double) s->n) - 1;
    return s->v[rank < 0 ? 0 : rank > (double) s->n - 1 ? s->n - 1 : (size_t) rank];
}

/* ---- players ----------------------------------------------------------------------- */

static int64_t local_of(const bot_t *b, const player_t *p, int64_t mono)
{
    return mono + p->offset_us + (int64_t) ((double) (mono - b->start) * p->drift);
}

/* Ends the player's connection: to connect again after its backoff, or
 * never when the gate refused it. */
static void kill_player(bot_t *b, player_t *p, bool retry)
{
    if (p->tcp >= 0)
        close(p->tcp);
    if (p->udp >= 0)
        close(p->udp);
    p->tcp = p->udp = -1;
    if (!p->dead) {
        b->disconnects++;
        b->refused += !retry;
    }
    p->dead = true;
    p->retry_at = retry ? ts_clock_mono_us() + p->backoff : 0;
    p->backoff = p->backoff * 2 > BACKOFF_MAX_US ? BACKOFF_MAX_US : p->backoff * 2;
}

static bool exchange_message(const uint8_t *msg, size_t len, ts_dir_t dir, ts_msg_t *m)
{
    return ts_msg_decode(msg, len, dir, m) == TS_OK
           && (m->type == TS_SYNC || m->type == TS_SYNC_REPLY || m->type == TS_SYNC_ACK || m->type == TS_SYNC_RESULT);
}

/* The injected network, either way: an exchange message is lost with the
 * loss probability; anything else waits out the player's base delay for
 * that direction plus jitter, never overtaking on TCP, counted from now
 * (for what comes from the gate: when the kernel received it). */
static void inject(bot_t *b, uint32_t i, const uint8_t *msg, size_t len, bool up, bool udp, int64_t now)
{
    player_t *p = &b->p[i];
    ts_msg_t m;
    bool exch = exchange_message(msg, len, up ? TS_FROM_CLIENT : TS_FROM_SERVER, &m);
    if (exch && b->loss > 0 && uniform(b) < b->loss) {
        b->lost++;
        return;
    }
    int64_t due = now + (int64_t) (up ? p->up_us : p->down_us) + jitter(b);
    int64_t *last = up ? &p->tcp_up_last : &p->tcp_down_last;
    if (!udp) {
        due = due > *last ? due : *last;
        *last = due;
    }
    uint8_t kind = up ? (udp ? OUT_UDP : OUT_TCP) : (udp ? IN_UDP : IN_TCP);
    delayq_push(b->q, due, i, KIND(kind, p->gen), due - now, msg, len);
}

static int connect_player(bot_t *b, uint32_t i, const struct addrinfo *gate)
{
    player_t *p = &b->p[i];
    p->gen++;
    p->tcp_up_last = p->tcp_down_last = 0;
    p->tcp = socket(gate->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (p->tcp < 0 || connect(p->tcp, gate->ai_addr, gate->ai_addrlen) < 0)
        return -1;
    if (b->udp) {
        p->udp = socket(gate->ai_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (p->udp < 0 || connect(p->udp, gate->ai_addr, gate->ai_addrlen) < 0)
            return -1;
    }
    ts_stamp_arrivals(p->tcp);
    if (p->udp >= 0)
        ts_stamp_arrivals(p->udp);
    p->dead = false;
    p->retry_at = 0;
    struct epoll_event ev = { .events = EPOLLIN, .data.u64 = (uint64_t) i << 1 };
    if (epoll_ctl(b->ep, EPOLL_CTL_ADD, p->tcp, &ev) < 0)
        return -1;
    ev.data.u64 = (uint64_t) i << 1 | 1;
    if (p->udp >= 0 && epoll_ctl(b->ep, EPOLL_CTL_ADD, p->udp, &ev) < 0)
        return -1;
    ticksync_session_reset(p->s);
    ts_framer_destroy(&p->framer);
    if (!(p->framer = ts_framer_new()))
        return -1;
    uint8_t hello[128];
    size_t n = ticksync_session_hello(p->s, hello, sizeof hello);
    inject(b, i, hello, n, true, false, ts_clock_mono_us());
    return 0;
}

/* The delay a message really had in the bot: from its arrival (or its
 * making) to now, its delivery; the same as injected unless the bot's loop
 * ran late. */
static int64_t applied(const delayq_item_t *it, int64_t now)
{
    return now - (it->due - it->injected);
}

/* A SYNC_ACK leaving now: its up delay is half the truth of its exchange. */
static void note_ack_sent(player_t *p, const delayq_item_t *it, int64_t now)
{
    ts_msg_t m;
    if (ts_msg_decode(it->bytes, it->len, TS_FROM_CLIENT, &m) != TS_OK || m.type != TS_SYNC_ACK)
        return;
    p->ack_up[m.seq % SEQ_RING] = applied(it, now);
    p->ack_seq[m.seq % SEQ_RING] = m.seq;
}

/* A message whose time has come. */
static void deliver(bot_t *b, const delayq_item_t *it, int64_t now)
{
    player_t *p = &b->p[it->player];
    if (p->dead || it->kind != KIND(it->kind & 3, p->gen))
        return;   /* for a connection that has gone */
    int kind = it->kind & 3;
    if (kind == OUT_TCP || kind == OUT_UDP)
        note_ack_sent(p, it, now);
    if (kind == OUT_TCP) {
        uint8_t frame[TS_FRAME_HEADER + DELAYQ_BYTES];
        ts_frame_put_header(frame, it->len);
        memcpy(frame + TS_FRAME_HEADER, it->bytes, it->len);
        if (send(p->tcp, frame, TS_FRAME_HEADER + it->len, MSG_NOSIGNAL) != (ssize_t) (TS_FRAME_HEADER + it->len))
            kill_player(b, p, true);
        return;
    }
    if (kind == OUT_UDP) {
        uint8_t dgram[TS_DGRAM_MAX];
        size_t n = ticksync_session_udp_wrap(p->s, it->bytes, it->len, dgram, sizeof dgram);
        if (n)
            send(p->udp, dgram, n, MSG_NOSIGNAL);
        return;
    }
    ts_msg_t m;
    if (ts_msg_decode(it->bytes, it->len, TS_FROM_SERVER, &m) != TS_OK)
        return;
    if (m.type == TS_SYNC_REPLY) {
        p->reply_down[m.seq % SEQ_RING] = applied(it, now);
        b->replies++;
    }
    if (m.type == TS_SYNC_RESULT) {
        b->results++;
        uint64_t slot = m.seq % SEQ_RING;
        if (m.u.sync_result.rtt < 0)
            b->invalid_results++;
        else if (p->ack_seq[slot] == m.seq)
            series_add(&b->rtt_err, (double) m.u.sync_result.rtt - (double) (p->reply_down[slot] + p->ack_up[slot]));
    }
    uint8_t reply[256];
    int n = ticksync_session_receive(p->s, it->bytes, it->len, local_of(b, p, now), reply, sizeof reply);
    if (n > 0)
        inject(b, it->player, reply, (size_t) n, true, kind == IN_UDP, now);
    if (m.type == TS_WELCOME)
        p->backoff = BACKOFF_MIN_US;
    if (n < 0 && ticksync_session_state(p->s) == TICKSYNC_SESSION_CLOSED)
        kill_player(b, p, false);   /* refused: BYE, or an error that closes */
}

/* --ticks: an input made now, stamped for ticksync_input_tick, takes the
 * player's way up (as its SYNCs do, jitter included); it is in time when it
 * reaches the server (whose clock is this host's) before the server starts
 * that tick, the server ticking every tick_us from the Unix epoch. */
static void play_input(bot_t *b, player_t *p, ticksync_t *clock, int64_t local, int64_t truth)
{
    ticksync_ticks_t ticks;
    ticksync_ticks_default(&ticks, b->tick_us, 0);
    int64_t tick = ticksync_input_tick(clock, &ticks, local);
    double arrives = (double) truth + p->up_us + (double) jitter(b);
    b->inputs++;
    b->inputs_in_time += arrives < (double) tick * (double) b->tick_us;
}

/* SYNCs that are due, and the check of the time each player shows. */
static void tick_players(bot_t *b, int64_t now)
{
    for (int i = 0; i < b->n; i++) {
        player_t *p = &b->p[i];
        if (p->dead && p->retry_at && now >= p->retry_at) {
            b->reconnects++;
            if (connect_player(b, (uint32_t) i, b->gate) < 0)
                kill_player(b, p, true);
        }
        if (p->dead)
            continue;
        int64_t local = local_of(b, p, now);
        uint8_t sync[64];
        size_t n = ticksync_session_sync(p->s, local, sync, sizeof sync);
        ticksync_t *clock = ticksync_session_clock(p->s);
        if (n) {
            b->syncs++;
            bool udp = p->udp >= 0 && ticksync_session_udp_ready(p->s) && !ticksync_needs_reliable(clock);
            inject(b, (uint32_t) i, sync, n, true, udp, now);
        }
        if (now < p->next_check)
            continue;
        p->next_check = now + SAMPLE_US;
        if (!ticksync_synced(clock)) {
            p->synced_since = 0;
            continue;
        }
        int64_t shown = ticksync_now(clock, local), truth = ts_clock_real_us();
        if (shown < p->last_shown)
            b->backwards++;
        p->last_shown = shown;
        if (!p->synced_since)
            p->synced_since = now;
        else if (now - p->synced_since >= CONVERGE_US) {
            double err = (double) (shown - truth), bound = fabs(p->up_us - p->down_us) / 2;
            series_add(&b->offset_err, err);
            series_add(&b->excess, fabs(err) > bound ? fabs(err) - bound : 0);
            if (b->tick_us)
                play_input(b, p, clock, local, truth);
        }
    }
}

static void read_socket(bot_t *b, uint64_t tag, int64_t now)
{
    uint32_t i = (uint32_t) (tag >> 1);
    player_t *p = &b->p[i];
    if (p->dead)
        return;
    uint8_t buf[8192];
    int64_t arrived, real;
    if (tag & 1) {
        ssize_t n;
        while ((n = ts_recv_stamped(p->udp, buf, sizeof buf, NULL, NULL, &arrived)) > 0) {
            const uint8_t *msg;
            size_t len = ticksync_session_udp_unwrap(p->s, buf, (size_t) n, &msg);
            if (len) {
                ts_arrival_clocks(arrived, &real, &now);   /* the injected delay starts when the bytes came */
                inject(b, i, msg, len, false, true, now);
            }
        }
        return;
    }
    ssize_t n = ts_recv_stamped(p->tcp, buf, sizeof buf, NULL, NULL, &arrived);
    if (n > 0)
        ts_arrival_clocks(arrived, &real, &now);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
        kill_player(b, p, true);
        return;
    }
    for (size_t at = 0; n > 0 && at < (size_t) n;) {
        size_t used, len;
        const uint8_t *body;
        int rc = ts_framer_feed(p->framer, buf + at, (size_t) n - at, &used, &body, &len);
        at += used;
        if (rc < 0) {
            kill_player(b, p, true);
            return;
        }
        if (rc == TS_FRAME_READY)
            inject(b, i, body, len, false, false, now);
    }
}

/* ---- summary ------------------------------------------------------------------------- */

static json_t *dist(series_t *s)
{
    for (size_t i = 0; i < s->n; i++)
        s->v[i] = fabs(s->v[i]);
    qsort(s->v, s->n, sizeof s->v[0], cmp_double);
    return json_pack("{s:I,s:f,s:f,s:f,s:f}", "n", (json_int_t) s->n, "p50", pct(s, 50), "p90", pct(s, 90),
                     "p99", pct(s, 99), "max", pct(s, 100));
}

static void print_dist(const char *name, json_t *d, const char *what)
{
    printf("%-22s p50 %7.3f ms   p90 %7.3f ms   p99 %7.3f ms   max %7.3f ms   (%lld values; %s)\n", name,
           json_real_value(json_object_get(d, "p50")) / 1000, json_real_value(json_object_get(d, "p90")) / 1000,
           json_real_value(json_object_get(d, "p99")) / 1000, json_real_value(json_object_get(d, "max")) / 1000,
           (long long) json_integer_value(json_object_get(d, "n")), what);
}

static void summary(bot_t *b, double seconds, bool as_json)
{
    int alive = 0;
    for (int i = 0; i < b->n; i++)
        alive += !b->p[i].dead;
    json_t *out = json_pack("{s:i,s:i,s:f,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:o,s:o,s:o,s:o,s:I}", "players", b->n,
                            "connected", alive, "seconds", seconds, "syncs", (json_int_t) b->syncs,
                            "exchanges", (json_int_t) b->replies, "results", (json_int_t) b->results,
                            "invalid", (json_int_t) b->invalid_results, "lost_injected", (json_int_t) b->lost,
                            "disconnects", (json_int_t) b->disconnects, "reconnects", (json_int_t) b->reconnects,
                            "refused", (json_int_t) b->refused, "server_rtt_error_us", dist(&b->rtt_err),
                            "client_offset_error_us", dist(&b->offset_err), "asymmetry_bound_us", dist(&b->asym),
                            "offset_error_beyond_bound_us", dist(&b->excess),
                            "backwards", (json_int_t) b->backwards);
    if (b->tick_us) {
        json_object_set_new(out, "inputs", json_integer((json_int_t) b->inputs));
        json_object_set_new(out, "inputs_in_time", json_real(b->inputs ? (double) b->inputs_in_time / (double) b->inputs : 0));
    }
    if (as_json) {
        char *s = json_dumps(out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        puts(s);
        free(s);
    } else {
        printf("ticksync-bot: %d players (%d connected) for %.1f s, %s\n", b->n, alive, seconds,
               b->udp ? "TCP then UDP" : "TCP");
        printf("%-22s %llu SYNCs, %llu replies, %llu results (%llu invalid), %llu messages lost by injection\n",
               "exchanges", (unsigned long long) b->syncs, (unsigned long long) b->replies,
               (unsigned long long) b->results, (unsigned long long) b->invalid_results,
               (unsigned long long) b->lost);
        print_dist("server rtt error", json_object_get(out, "server_rtt_error_us"), "server srtt sample - injected");
        print_dist("client offset error", json_object_get(out, "client_offset_error_us"), "shown - true server time");
        print_dist("asymmetry bound", json_object_get(out, "asymmetry_bound_us"), "|up - down| / 2 per player");
        print_dist("error beyond bound", json_object_get(out, "offset_error_beyond_bound_us"),
                   "what no symmetric estimate excuses");
        printf("%-22s %llu\n", "backwards steps", (unsigned long long) b->backwards);
        printf("%-22s %llu (%llu reconnects, %llu refused)\n", "disconnects", (unsigned long long) b->disconnects,
               (unsigned long long) b->reconnects, (unsigned long long) b->refused);
        if (b->tick_us)
            printf("%-22s %.2f%% of %llu reached the server before their tick (%lld us ticks)\n", "inputs in time",
                   b->inputs ? 100.0 * (double) b->inputs_in_time / (double) b->inputs : 0,
                   (unsigned long long) b->inputs, (long long) b->tick_us);
    }
    json_decref(out);
}

/* ---- main ---------------------------------------------------------------------------- */

static void raise_fd_limit(void)
{
    struct rlimit r;
    if (getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < r.rlim_max) {
        r.rlim_cur = r.rlim_max;
        setrlimit(RLIMIT_NOFILE, &r);
    }
}

static int setup(bot_t *b, const ts_config_t *cfg, struct addrinfo **gate, char *err)
{
    range_t up, down, off, drift, jit, loss;
    const char *jk = ts_config_str(cfg, "jitter");
    if (parse_range(ts_config_str(cfg, "up-ms"), &up) < 0 || up.lo < 0)
        return snprintf(err, TS_ERR_MAX, "up-ms: want A or A-B, milliseconds"), -1;
    if (parse_range(ts_config_str(cfg, "down-ms"), &down) < 0 || down.lo < 0)
        return snprintf(err, TS_ERR_MAX, "down-ms: want A or A-B, milliseconds"), -1;
    if (parse_range(ts_config_str(cfg, "offset-ms"), &off) < 0)
        return snprintf(err, TS_ERR_MAX, "offset-ms: want A or A-B"), -1;
    char *end;
    double speed = strtod(ts_config_str(cfg, "speed"), &end);
    if (*end || !(speed >= 0.5 && speed <= 2))
        return snprintf(err, TS_ERR_MAX, "speed: want a factor from 0.5 to 2, like 1.05"), -1;
    if (parse_range(ts_config_str(cfg, "drift-ppm"), &drift) < 0 || drift.lo < -1000 || drift.hi > 1000)
        return snprintf(err, TS_ERR_MAX, "drift-ppm: want A or A-B within +-1000"), -1;
    if (parse_range(ts_config_str(cfg, "jitter-ms"), &jit) < 0 || jit.lo < 0 || jit.lo != jit.hi)
        return snprintf(err, TS_ERR_MAX, "jitter-ms: want one number >= 0"), -1;
    if (parse_range(ts_config_str(cfg, "loss"), &loss) < 0 || loss.lo < 0 || loss.lo > 1 || loss.lo != loss.hi)
        return snprintf(err, TS_ERR_MAX, "loss: want a probability 0..1"), -1;
    b->jitter_kind = strcmp(jk, "uniform") == 0 ? 0 : strcmp(jk, "exponential") == 0 ? 1 : strcmp(jk, "pareto") == 0 ? 2 : -1;
    if (b->jitter_kind < 0)
        return snprintf(err, TS_ERR_MAX, "jitter: uniform, exponential or pareto"), -1;
    b->jitter_us = jit.lo * 1000;
    b->loss = loss.lo;
    b->udp = ts_config_bool(cfg, "udp");
    b->tick_us = ts_config_int(cfg, "ticks") ? 1000000 / ts_config_int(cfg, "ticks") : 0;
    b->rng = (uint64_t) ts_config_int(cfg, "seed");
    b->n = (int) ts_config_int(cfg, "players");
    char host[256], port[8];
    const char *gate_text = ts_config_str(cfg, "gate"), *colon = strrchr(gate_text, ':');
    if (!colon || colon == gate_text || (size_t) (colon - gate_text) >= sizeof host || strlen(colon + 1) >= sizeof port)
        return snprintf(err, TS_ERR_MAX, "gate: want HOST:PORT"), -1;
    memcpy(host, gate_text, (size_t) (colon - gate_text));
    host[colon - gate_text] = '\0';
    strcpy(port, colon + 1);
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
    if (getaddrinfo(host, port, &hints, gate) != 0)
        return snprintf(err, TS_ERR_MAX, "gate: cannot resolve '%s'", gate_text), -1;

    size_t secret_len = 0;
    uint8_t *secret = NULL;
    if (ts_config_str(cfg, "secret-file")
        && !(secret = ts_token_read_secret(ts_config_str(cfg, "secret-file"), &secret_len)))
        return snprintf(err, TS_ERR_MAX, "secret-file: cannot read it"), -1;
    b->p = calloc((size_t) b->n, sizeof *b->p);
    b->q = delayq_new();
    b->ep = epoll_create1(EPOLL_CLOEXEC);
    if (!b->p || !b->q || b->ep < 0) {
        free(secret);
        return snprintf(err, TS_ERR_MAX, "out of memory"), -1;
    }
    uint64_t first = (uint64_t) ts_config_int(cfg, "first-player");
    for (int i = 0; i < b->n; i++) {
        player_t *p = &b->p[i];
        p->id = first + (uint64_t) i;
        p->tcp = p->udp = -1;
        p->backoff = BACKOFF_MIN_US;
        p->up_us = draw(b, up) * 1000;
        p->down_us = draw(b, down) * 1000;
        p->offset_us = (int64_t) (draw(b, off) * 1000);
        p->drift = draw(b, drift) * 1e-6 + (speed - 1);
        series_add(&b->asym, fabs(p->up_us - p->down_us) / 2);
        uint8_t token[TS_TOKEN_LEN];
        if (secret)
            ts_token_make(secret, secret_len, p->id, (uint64_t) time(NULL) + 86400, token);
        p->s = ticksync_session_new(p->id, secret ? token : NULL, secret ? sizeof token : 0, NULL);
        if (!p->s) {
            free(secret);
            return snprintf(err, TS_ERR_MAX, "out of memory"), -1;
        }
    }
    free(secret);
    return 0;
}

static void teardown(bot_t *b)
{
    for (int i = 0; b->p && i < b->n; i++) {
        if (b->p[i].tcp >= 0)
            close(b->p[i].tcp);
        if (b->p[i].udp >= 0)
            close(b->p[i].udp);
        ticksync_session_destroy(&b->p[i].s);
        ts_framer_destroy(&b->p[i].framer);
    }
    free(b->p);
    delayq_destroy(&b->q);
    if (b->ep >= 0)
        close(b->ep);
    free(b->rtt_err.v);
    free(b->offset_err.v);
    free(b->asym.v);
    free(b->excess.v);
}

int main(int argc, char **argv)
{
    ts_config_t *cfg = ts_config_new("ticksync-bot", "[options]",
                                     "Plays many ticksync clients at once through libticksync, with injected\n"
                                     "delays, jitter, loss and client clock offset and drift, and reports how\n"
                                     "far the server's and the clients' estimates are from the truth.",
                                     settings, sizeof settings / sizeof settings[0]);
    ts_config_rc_t rc = cfg ? ts_config_load(cfg, argc, argv) : TS_CONFIG_BAD;
    if (rc == TS_CONFIG_OK && ts_config_argc(cfg) > 0)
        rc = ts_config_fail(cfg, "unexpected argument '%s'", ts_config_arg(cfg, 0));
    if (rc != TS_CONFIG_OK) {
        ts_config_destroy(&cfg);
        return rc == TS_CONFIG_EXIT ? 0 : 2;
    }
    bot_t b = { .ep = -1 };
    struct addrinfo *gate = NULL;
    char err[TS_ERR_MAX];
    raise_fd_limit();
    if (setup(&b, cfg, &gate, err) < 0) {
        ts_config_fail(cfg, "%s", err);
        teardown(&b);
        if (gate)
            freeaddrinfo(gate);
        ts_config_destroy(&cfg);
        return 2;
    }
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGPIPE, SIG_IGN);
    b.start = ts_clock_mono_us();
    b.gate = gate;
    int refused = 0;
    for (int i = 0; i < b.n; i++)
        if (connect_player(&b, (uint32_t) i, gate) < 0) {
            if (!refused++)
                fprintf(stderr, "ticksync-bot: player %llu cannot connect to %s: %s (retrying with backoff)\n",
                        (unsigned long long) b.p[i].id, ts_config_str(cfg, "gate"), strerror(errno));
            kill_player(&b, &b.p[i], true);
        }

    int64_t duration = ts_config_int(cfg, "duration-s") * 1000000, next_progress = b.start + 1000000;
    bool quiet = ts_config_bool(cfg, "quiet");
    uint64_t last_results = 0;
    int64_t next_tick = 0;
    struct epoll_event ev[256];
    while (!stop_now && (duration == 0 || ts_clock_mono_us() - b.start < duration)) {
        int64_t now = ts_clock_mono_us();
        if (now >= next_tick) {   /* every player at most once a millisecond */
            tick_players(&b, now);
            next_tick = now + 1000;
        }
        delayq_item_t it;
        while (delayq_pop_due(b.q, now, &it)) {
            deliver(&b, &it, now);
            now = ts_clock_mono_us();   /* each delivery at its own time, or the truth drifts by the batch */
        }
        int64_t wait = delayq_next(b.q) - now;
        wait = wait < 0 ? 0 : wait > 1000 ? 1000 : wait;
        /* microsecond timeouts: a millisecond's rounding would be an error the truth does not have */
        struct timespec ts = { .tv_sec = 0, .tv_nsec = (long) wait * 1000 };
        int n = epoll_pwait2(b.ep, ev, 256, &ts, NULL);
        if (n < 0 && errno == ENOSYS)
            n = epoll_wait(b.ep, ev, 256, (int) ((wait + 999) / 1000));
        now = ts_clock_mono_us();
        for (int i = 0; i < n; i++)
            read_socket(&b, ev[i].data.u64, now);
        if (!quiet && now >= next_progress) {
            int synced = 0, connected = 0;
            for (int i = 0; i < b.n; i++) {
                connected += !b.p[i].dead;
                synced += !b.p[i].dead && ticksync_synced(ticksync_session_clock(b.p[i].s));
            }
            fprintf(stderr, "ticksync-bot: %.0f s  players %d  connected %d  synced %d  exchanges %llu  (%llu/s)  "
                    "backwards %llu\n", (double) (now - b.start) / 1e6, b.n, connected, synced, (unsigned long long) b.results,
                    (unsigned long long) (b.results - last_results), (unsigned long long) b.backwards);
            last_results = b.results;
            next_progress += 1000000;
        }
    }
    summary(&b, (double) (ts_clock_mono_us() - b.start) / 1e6, ts_config_bool(cfg, "json"));
    freeaddrinfo(gate);
    teardown(&b);
    ts_config_destroy(&cfg);
    return 0;
}
