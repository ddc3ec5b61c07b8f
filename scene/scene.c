/* scene/scene.c - see scene.h. PINGs are answered here, on the routing
 * thread, so a shard that routes is a shard that is up. Everything else
 * goes to the worker that owns the player.
 *
 * A gate's message is a batch of envelopes (proto/envelope.h); its PONGs
 * leave as one batch, and the rest is passed on as one message per worker
 * that owns any of its players, so a busy gate costs the scene one
 * hand-off per batch, not one per envelope. */
#include "scene.h"

#include <czmq.h>
#include <unistd.h>

#include "admin.h"
#include "err.h"
#include "envelope.h"
#include "gates.h"
#include "signals.h"
#include "stats.h"
#include "store.h"
#include "wire.h"
#include "worker.h"
#include "writer.h"

#define SCENE_PASS_MAX 512     /* envelopes per message to a worker */
#define SCENE_HWM      10000   /* batches queued each way with the gates */
#define GATE_LOST_US   2000000 /* a gate silent this long has gone: 10 of its PINGs missed,
                                  and ZeroMQ's heartbeat would have dropped it too */
#define GATE_CHECK_MS  250     /* how often silent gates are looked for */

struct scene_t {
    scene_options_t  opt;
    ts_log_t        *log;
    scene_stats_t    stats;
    scene_writer_t  *writer;
    scene_admin_t   *admin;
    scene_worker_t **workers;
    zsock_t        **to_worker;
    zsock_t         *router, *replies;
    zactor_t        *auth;       /* ZAP handler, with CurveZMQ */
    ts_decoder_t    *dec;
    scene_gates_t   *gates;      /* who sends, and who has gone silent */
    scene_health_t  *health;     /* the store's state: /healthz and each PONG's flags */
    int              signal_fd;
    zmq_msg_t        in;         /* the gate's batch being routed */
    uint8_t         *answers;    /* TS_ENV_BATCH_MAX: the PONGs for it */
    size_t           answers_len;
    ts_env_t       **passed;     /* per worker, SCENE_PASS_MAX envelopes for it */
    size_t          *npassed;
    scene_sender_t   to_gate, to_workers;   /* the routing thread's sends */
};

/* The router as a CurveZMQ server, with zauth letting in the gates whose
 * public certificates are in opt.curve_gates (any gate when unset). */
static int curve_serve(scene_t *s, char *err)
{
    zcert_t *cert = zcert_load(s->opt.curve_cert);
    s->auth = cert ? zactor_new(zauth, NULL) : NULL;
    if (!s->auth) {
        snprintf(err, TS_ERR_MAX, "cannot load %s or start CurveZMQ authentication", s->opt.curve_cert);
        zcert_destroy(&cert);
        return -1;
    }
    zstr_sendx(s->auth, "CURVE", s->opt.curve_gates ? s->opt.curve_gates : CURVE_ALLOW_ANY, NULL);
    zsock_wait(s->auth);
    zcert_apply(cert, s->router);
    zsock_set_curve_server(s->router, 1);
    zsock_set_zap_domain(s->router, "ticksync");
    zcert_destroy(&cert);
    return 0;
}

/* The store, opened and its write-ahead log bounded, handed to the writer
 * thread; the admin API reads the same file. */
static int start_store(scene_t *s, ts_metrics_t *metrics, char *err)
{
    const scene_options_t *opt = &s->opt;
    s->health = scene_health_new();
    if (!s->health) {
        snprintf(err, TS_ERR_MAX, "out of memory");
        return -1;
    }
    scene_store_t *store = scene_store_new(opt->db, err);
    if (store && opt->wal_bytes > 0 && scene_store_bound_wal(store, opt->wal_bytes, err) < 0)
        scene_store_destroy(&store);
    if (!store)
        return -1;
    int64_t took_us, moved = scene_store_history_moved(store, &took_us);
    if (moved)
        ts_log(s->log, TS_LOG_WARN, "history_layout_moved", "rows=%lld seconds=%.1f", (long long) moved,
               (double) took_us / 1e6);
    s->writer = scene_writer_new(store, opt->workers, opt->flush_ms, opt->history_keep_us, s->log, &s->stats,
                                 s->health);
    if (!s->writer) {
        snprintf(err, TS_ERR_MAX, "cannot start the scene's writer thread");
        return -1;
    }
    scene_admin_options_t ao = { .listen = opt->admin, .db = opt->db, .token = opt->admin_token,
                                 .metrics = metrics, .log = s->log, .history_step_us = opt->history_step_us,
                                 .health = s->health, .workers = opt->workers, .idle_us = opt->idle_us };
    s->admin = scene_admin_new(&ao, err);
    return s->admin ? 0 : -1;
}

/* The buffers the main loop decodes into and passes on with. */
static int make_buffers(scene_t *s, char *err)
{
    int n = s->opt.workers;
    s->passed = calloc((size_t) n, sizeof *s->passed);
    s->npassed = calloc((size_t) n, sizeof *s->npassed);
    s->answers = malloc(TS_ENV_BATCH_MAX);
    s->dec = ts_decoder_new();
    s->gates = scene_gates_new(GATE_LOST_US);
    bool ok = s->passed && s->npassed && s->answers && s->dec && s->gates;
    for (int w = 0; ok && w < n; w++)
        ok = (s->passed[w] = malloc(SCENE_PASS_MAX * sizeof(ts_env_t))) != NULL;
    if (!ok)
        snprintf(err, TS_ERR_MAX, "out of memory");
    return ok ? 0 : -1;
}

/* The worker threads, a PUSH socket to each, and the PULL their replies
 * come back on. */
static int start_workers(scene_t *s, char *err)
{
    const scene_options_t *opt = &s->opt;
    s->workers = calloc((size_t) opt->workers, sizeof *s->workers);
    s->to_worker = calloc((size_t) opt->workers, sizeof *s->to_worker);
    s->replies = zsock_new_pull("@" SCENE_EP_REPLIES);
    if (!s->workers || !s->to_worker || !s->replies) {
        snprintf(err, TS_ERR_MAX, "cannot start the scene's threads");
        return -1;
    }
    zsock_set_rcvhwm(s->replies, 0);
    s->to_workers = (scene_sender_t) { .failed = s->stats.send_failed_worker, .log = s->log, .to = "worker" };
    char ep[64];
    for (int w = 0; w < opt->workers; w++) {
        scene_worker_options_t wo = { .index = w, .count = opt->workers, .idle_us = opt->idle_us,
                                      .lag = opt->lag, .speed = opt->speed,
                                      .history_step_us = opt->history_step_us,
                                      .hold_us = scene_hold_us(opt->flush_ms), .log = s->log,
                                      .stats = &s->stats };
        s->workers[w] = scene_worker_new(&wo);
        s->to_worker[w] = zsock_new_push(scene_worker_endpoint(ep, '>', w));
        if (!s->workers[w] || !s->to_worker[w]) {
            snprintf(err, TS_ERR_MAX, "cannot start worker %d", w);
            return -1;
        }
        zsock_set_sndhwm(s->to_worker[w], 0);
    }
    return 0;
}

/* The ROUTER the gates connect to, with CurveZMQ when a certificate is
 * given, bound. */
static int bind_router(scene_t *s, char *err)
{
    s->router = zsock_new(ZMQ_ROUTER);
    if (!s->router) {
        snprintf(err, TS_ERR_MAX, "cannot make the gates' socket");
        return -1;
    }
    /* a reply for a gate that is gone or full is refused (and counted),
     * not dropped without a word as a ROUTER otherwise does */
    zsock_set_router_mandatory(s->router, 1);
    /* a gate keeps its identity across reconnects: the new connection takes
     * over from one ZeroMQ has not yet seen drop */
    zsock_set_router_handover(s->router, 1);
    s->to_gate = (scene_sender_t) { .failed = s->stats.send_failed_gate, .log = s->log, .to = "gate" };
    zsock_set_sndhwm(s->router, SCENE_HWM);
    zsock_set_rcvhwm(s->router, SCENE_HWM);
    zsock_set_linger(s->router, 500);
    zsock_set_heartbeat_ivl(s->router, 500);   /* as the gate's: see gate/shards.c */
    zsock_set_heartbeat_timeout(s->router, 2000);
    if (s->opt.curve_cert && curve_serve(s, err) < 0)
        return -1;
    if (zsock_bind(s->router, "%s", s->opt.bind) < 0) {
        snprintf(err, TS_ERR_MAX, "cannot bind %s: %s", s->opt.bind, zmq_strerror(zmq_errno()));
        return -1;
    }
    return 0;
}

static int watch_signals(scene_t *s, char *err)
{
    s->signal_fd = ts_signals_fd();
    if (s->signal_fd < 0)
        snprintf(err, TS_ERR_MAX, "cannot watch signals");
    return s->signal_fd < 0 ? -1 : 0;
}

scene_t *scene_new(const scene_options_t *opt, ts_log_t *log, ts_metrics_t *metrics, char *err)
{
    scene_t *s = calloc(1, sizeof *s);
    if (!s || scene_stats_init(&s->stats, metrics) < 0) {
        snprintf(err, TS_ERR_MAX, "out of memory");
        free(s);
        return NULL;
    }
    s->opt = *opt;
    s->log = log;
    s->signal_fd = -1;
    zmq_msg_init(&s->in);
    if (start_store(s, metrics, err) < 0 || make_buffers(s, err) < 0 || start_workers(s, err) < 0
        || bind_router(s, err) < 0 || watch_signals(s, err) < 0)
        scene_destroy(&s);
    return s;
}

void scene_destroy(scene_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    scene_t *s = *self_p;
    scene_admin_destroy(&s->admin);
    zsock_destroy(&s->router);
    zactor_destroy(&s->auth);
    for (int w = 0; s->workers && w < s->opt.workers; w++) {
        scene_worker_destroy(&s->workers[w]);
        if (s->to_worker)
            zsock_destroy(&s->to_worker[w]);
    }
    scene_writer_destroy(&s->writer);
    zsock_destroy(&s->replies);
    ts_decoder_destroy(&s->dec);
    scene_gates_destroy(&s->gates);
    scene_health_destroy(&s->health);
    if (s->signal_fd >= 0)
        close(s->signal_fd);
    for (int w = 0; s->passed && w < s->opt.workers; w++)
        free(s->passed[w]);
    free(s->passed);
    free(s->npassed);
    free(s->answers);
    zmq_msg_close(&s->in);
    free(s->workers);
    free(s->to_worker);
    free(s);
    *self_p = NULL;
}

/* Sends what is gathered for the gate id: the answers, and each worker's
 * share as 'E' | gate identity | ts_env_t[n]. */
static void send_gathered(scene_t *s, void *router, const uint8_t *id, size_t idn)
{
    if (s->answers_len > 0) {
        const void *parts[] = { id, s->answers };
        const size_t lens[] = { idn, s->answers_len };
        scene_send(&s->to_gate, router, ZMQ_DONTWAIT, 2, parts, lens);
        s->answers_len = 0;
    }
    for (int w = 0; w < s->opt.workers; w++) {
        if (s->npassed[w] == 0)
            continue;
        const void *parts[] = { "E", id, s->passed[w] };
        const size_t lens[] = { 1, idn, s->npassed[w] * sizeof(ts_env_t) };
        scene_send(&s->to_workers, zsock_resolve(s->to_worker[w]), 0, 3, parts, lens);
        s->npassed[w] = 0;
    }
}

/* An answer from the routing thread, into the batch for the gate. */
static void answer(scene_t *s, void *router, const uint8_t *id, size_t idn, const ts_env_t *env)
{
    if (!ts_env_append(s->answers, TS_ENV_BATCH_MAX, &s->answers_len, env)) {
        send_gathered(s, router, id, idn);
        ts_env_append(s->answers, TS_ENV_BATCH_MAX, &s->answers_len, env);
    }
    ts_metric_add(s->stats.replies_out, 1);
}

/* The gates heard from, and one more lost when lost: for the gauge and
 * /healthz (scene/health.h). */
static void count_gates(scene_t *s, bool lost)
{
    scene_health_gates_t g = scene_health_gates(s->health);
    g.gates = (int64_t) scene_gates_count(s->gates);
    if (lost) {
        g.lost++;
        g.last_lost_us = ts_clock_real_us();
    }
    scene_health_set_gates(s->health, &g);
    ts_metric_set(s->stats.gates, g.gates);
}

static bool from_gate(const ts_env_t *env)
{
    switch (env->kind) {
    case TS_ENV_PING:
        return true;
    case TS_ENV_OPEN: case TS_ENV_CLOSE: case TS_ENV_HELD: case TS_ENV_SYNC: case TS_ENV_SYNC_ACK:
        return env->player_id != 0;
    default:
        return false;
    }
}

/* One message from a gate: [identity][batch of envelopes]. False when none
 * waits. A message of another shape, or an envelope that is not one a gate
 * sends, is counted bad; a batch is used up to its first bad envelope. */
static bool route(scene_t *s, void *router)
{
    uint8_t id[256];
    bool more = false;
    int idn = scene_recv_part(router, id, sizeof id, ZMQ_DONTWAIT, &more);
    if (idn < 0)
        return false;
    bool body = more && zmq_msg_recv(&s->in, router, 0) >= 0;
    if (!body || idn > (int) sizeof id || zmq_msg_more(&s->in) || zmq_msg_size(&s->in) == 0
        || zmq_msg_size(&s->in) > TS_ENV_BATCH_MAX) {
        scene_recv_rest(router, body && zmq_msg_more(&s->in));
        ts_metric_add(s->stats.bad_envelopes, 1);
        return true;
    }
    if (scene_gates_seen(s->gates, id, (size_t) idn, ts_clock_mono_us()) == 1) {
        count_gates(s, false);
        ts_log(s->log, TS_LOG_INFO, "gate_seen", "gates=%zu", scene_gates_count(s->gates));
    }
    const uint8_t *batch = zmq_msg_data(&s->in);
    size_t len = zmq_msg_size(&s->in), off = 0, n = 0;
    ts_env_t env;
    for (int rc; (rc = ts_env_next(s->dec, batch, len, &off, &env)) != 0; n++) {
        if (rc < 0 || !from_gate(&env)) {
            ts_metric_add(s->stats.bad_envelopes, 1);
            continue;
        }
        if (env.kind == TS_ENV_PING) {
            uint64_t flags = scene_health_store_failing(s->health) ? TS_ENV_DEGRADED : 0;
            answer(s, router, id, (size_t) idn, &(ts_env_t) { .kind = TS_ENV_PONG, .seq = env.seq, .flags = flags });
            continue;
        }
        int w = scene_worker_of(env.player_id, s->opt.workers);
        if (s->npassed[w] == SCENE_PASS_MAX)
            send_gathered(s, router, id, (size_t) idn);
        s->passed[w][s->npassed[w]++] = env;
    }
    ts_metric_add(s->stats.envelopes_in, n);
    send_gathered(s, router, id, (size_t) idn);
    return true;
}

/* One reply from a worker: [gate identity][batch] goes out as it is. False
 * when none waits. A gate that is gone or full refuses it (counted, logged
 * by scene_send); what is left of the message is then read and dropped. */
static bool forward(scene_t *s, void *replies, void *router)
{
    uint8_t id[256];
    bool more = false;
    int idn = scene_recv_part(replies, id, sizeof id, ZMQ_DONTWAIT, &more);
    if (idn < 0)
        return false;
    zmq_msg_t batch;
    zmq_msg_init(&batch);
    if (more && idn <= (int) sizeof id && zmq_msg_recv(&batch, replies, 0) >= 0) {
        more = zmq_msg_more(&batch);
        const void *parts[] = { id, zmq_msg_data(&batch) };
        const size_t lens[] = { (size_t) idn, zmq_msg_size(&batch) };
        if (!more)
            scene_send(&s->to_gate, router, ZMQ_DONTWAIT, 2, parts, lens);
    }
    zmq_msg_close(&batch);
    scene_recv_rest(replies, more);   /* a worker sends exactly two parts */
    return true;
}

/* Gates silent for GATE_LOST_US: every worker marks their players offline. */
static void lose_silent_gates(scene_t *s)
{
    uint8_t id[SCENE_GATE_ID_MAX];
    size_t n;
    while ((n = scene_gates_next_lost(s->gates, ts_clock_mono_us(), id)) > 0) {
        ts_metric_add(s->stats.gates_lost, 1);
        count_gates(s, true);
        ts_log(s->log, TS_LOG_WARN, "gate_silent", "seconds=%.1f gates=%zu action=players_offline",
               GATE_LOST_US / 1e6, scene_gates_count(s->gates));
        for (int w = 0; w < s->opt.workers; w++) {
            const void *parts[] = { "G", id };
            const size_t lens[] = { 1, n };
            scene_send(&s->to_workers, zsock_resolve(s->to_worker[w]), 0, 2, parts, lens);
        }
    }
}

int scene_run(scene_t *s)
{
    ts_log(s->log, TS_LOG_INFO, "start", "bind=%s db=%s admin=%s workers=%d flush_ms=%d curve=%s", s->opt.bind, s->opt.db,
           s->opt.admin, s->opt.workers, s->opt.flush_ms,
           !s->opt.curve_cert ? "off" : s->opt.curve_gates ? "listed-gates" : "any-gate");
    void *router = zsock_resolve(s->router), *replies = zsock_resolve(s->replies);
    zmq_pollitem_t items[] = {
        { router, 0, ZMQ_POLLIN, 0 },
        { replies, 0, ZMQ_POLLIN, 0 },
        { NULL, s->signal_fd, ZMQ_POLLIN, 0 },
    };
    int64_t next_check = ts_clock_mono_us();
    for (;;) {
        if (zmq_poll(items, 3, GATE_CHECK_MS) < 0 && zmq_errno() != EINTR)
            break;
        if (ts_clock_mono_us() >= next_check) {
            lose_silent_gates(s);
            next_check = ts_clock_mono_us() + GATE_CHECK_MS * 1000;
        }
        if (items[2].revents & ZMQ_POLLIN)
            break;
        /* a batch of each, so neither direction waits on the other */
        for (int i = 0; i < 256 && (items[0].revents & ZMQ_POLLIN) && route(s, router); i++)
            ;
        for (int i = 0; i < 256 && (items[1].revents & ZMQ_POLLIN) && forward(s, replies, router); i++)
            ;
    }
    ts_log(s->log, TS_LOG_INFO, "stopping", NULL);
    /* the workers' last rows go to the store, and the store's last flush */
    scene_admin_destroy(&s->admin);
    for (int w = 0; w < s->opt.workers; w++)
        scene_worker_destroy(&s->workers[w]);
    int64_t lost = scene_writer_stop(s->writer);
    return lost ? SCENE_EXIT_ROWS_LOST : 0;
}
