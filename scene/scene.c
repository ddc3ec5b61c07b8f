/* scene/scene.c - see scene.h. PINGs are answered here, on the routing
 * thread, so a shard that routes is a shard that is up; so are SYNCs, whose
 * answer needs no player state (t1 and t2 echoed), so it leaves without
 * waiting for a worker. Everything else, the SYNCs too, goes to the worker
 * that owns the player. */
#include "scene.h"

#include <czmq.h>
#include <unistd.h>

#include "admin.h"
#include "envelope.h"
#include "signals.h"
#include "stats.h"
#include "store.h"
#include "wire.h"
#include "worker.h"
#include "writer.h"

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
    int              signal_fd;
};

/* The router as a CurveZMQ server, with zauth letting in the gates whose
 * public certificates are in opt.curve_gates (any gate when unset). */
static int curve_serve(scene_t *s, char *err)
{
    zcert_t *cert = zcert_load(s->opt.curve_cert);
    s->auth = cert ? zactor_new(zauth, NULL) : NULL;
    if (!s->auth) {
        snprintf(err, 256, "cannot load %s or start CurveZMQ authentication", s->opt.curve_cert);
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

scene_t *scene_new(const scene_options_t *opt, ts_log_t *log, ts_metrics_t *metrics, char *err)
{
    scene_t *s = calloc(1, sizeof *s);
    if (!s || scene_stats_init(&s->stats, metrics) < 0) {
        snprintf(err, 256, "out of memory");
        free(s);
        return NULL;
    }
    s->opt = *opt;
    s->log = log;
    s->signal_fd = -1;
    scene_store_t *store = scene_store_new(opt->db, err);
    if (!store) {
        free(s);
        return NULL;
    }
    s->writer = scene_writer_new(store, opt->workers, opt->flush_ms, log, &s->stats);
    if (s->writer) {
        scene_admin_options_t ao = { .listen = opt->admin, .db = opt->db, .token = opt->admin_token,
                                     .metrics = metrics, .log = log };
        s->admin = scene_admin_new(&ao, err);
        if (!s->admin) {
            scene_destroy(&s);
            return NULL;
        }
    }
    s->workers = calloc((size_t) opt->workers, sizeof *s->workers);
    s->to_worker = calloc((size_t) opt->workers, sizeof *s->to_worker);
    s->replies = zsock_new_pull("@" SCENE_EP_REPLIES);
    s->dec = ts_decoder_new();
    s->router = zsock_new(ZMQ_ROUTER);
    if (!s->writer || !s->workers || !s->to_worker || !s->replies || !s->router || !s->dec) {
        snprintf(err, 256, "cannot start the scene's threads");
        scene_destroy(&s);
        return NULL;
    }
    zsock_set_rcvhwm(s->replies, 0);
    char ep[64];
    for (int w = 0; w < opt->workers; w++) {
        scene_worker_options_t wo = { .index = w, .count = opt->workers, .idle_us = opt->idle_us,
                                      .lag = opt->lag, .log = log, .stats = &s->stats };
        s->workers[w] = scene_worker_new(&wo);
        s->to_worker[w] = zsock_new_push(scene_worker_endpoint(ep, '>', w));
        if (!s->workers[w] || !s->to_worker[w]) {
            snprintf(err, 256, "cannot start worker %d", w);
            scene_destroy(&s);
            return NULL;
        }
        zsock_set_sndhwm(s->to_worker[w], 0);
    }
    zsock_set_sndhwm(s->router, 200000);
    zsock_set_rcvhwm(s->router, 200000);
    zsock_set_linger(s->router, 500);
    zsock_set_heartbeat_ivl(s->router, 250);
    zsock_set_heartbeat_timeout(s->router, 1000);
    if (opt->curve_cert && curve_serve(s, err) < 0) {
        scene_destroy(&s);
        return NULL;
    }
    if (zsock_bind(s->router, "%s", opt->bind) < 0) {
        snprintf(err, 256, "cannot bind %s: %s", opt->bind, zmq_strerror(zmq_errno()));
        scene_destroy(&s);
        return NULL;
    }
    s->signal_fd = ts_signals_fd();
    if (s->signal_fd < 0) {
        snprintf(err, 256, "cannot watch signals");
        scene_destroy(&s);
    }
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
    if (s->signal_fd >= 0)
        close(s->signal_fd);
    free(s->workers);
    free(s->to_worker);
    free(s);
    *self_p = NULL;
}

/* One message from a gate: [identity][envelope]. False when none waits. */
static bool route(scene_t *s, void *router)
{
    uint8_t id[256], buf[TS_ENV_MAX + 1];
    bool more = false;
    int idn = scene_recv_part(router, id, sizeof id, ZMQ_DONTWAIT, &more);
    if (idn < 0)
        return false;
    int n = more ? scene_recv_part(router, buf, sizeof buf, 0, &more) : -1;
    bool extra = more;
    scene_recv_rest(router, more);
    ts_metric_add(s->stats.envelopes_in, 1);
    ts_env_t env;
    if (idn > (int) sizeof id || n < 0 || n > TS_ENV_MAX || extra || ts_env_decode_with(s->dec, buf, (size_t) n, &env) < 0
        || env.kind == TS_ENV_PONG || env.kind == TS_ENV_SYNC_REPLY || env.kind == TS_ENV_SYNC_RESULT
        || env.kind == TS_ENV_KICK || (env.kind != TS_ENV_PING && env.player_id == 0)) {
        ts_metric_add(s->stats.bad_envelopes, 1);
        return true;
    }
    if (env.kind == TS_ENV_PING) {
        scene_send_envelope(router, id, (size_t) idn, &(ts_env_t) { .kind = TS_ENV_PONG, .seq = env.seq });
        return true;
    }
    if (env.kind == TS_ENV_SYNC) {
        ts_env_t r = { .kind = TS_ENV_SYNC_REPLY, .conn = env.conn, .player_id = env.player_id, .seq = env.seq,
                       .t1 = env.t1, .t2 = env.t2 };
        if (scene_send_envelope(router, id, (size_t) idn, &r))
            ts_metric_add(s->stats.replies_out, 1);
    }
    void *w = zsock_resolve(s->to_worker[scene_worker_of(env.player_id, s->opt.workers)]);
    zmq_send(w, "E", 1, ZMQ_SNDMORE);
    zmq_send(w, id, (size_t) idn, ZMQ_SNDMORE);
    zmq_send(w, &env, sizeof env, 0);
    return true;
}

/* One reply from a worker: [identity][envelope] goes out as it is. False
 * when none waits. */
static bool forward(void *replies, void *router)
{
    zmq_msg_t part;
    zmq_msg_init(&part);
    int more = 1;
    bool got = false;
    while (more && zmq_msg_recv(&part, replies, ZMQ_DONTWAIT) >= 0) {
        got = true;
        more = zmq_msg_more(&part);
        zmq_msg_send(&part, router, (more ? ZMQ_SNDMORE : 0) | ZMQ_DONTWAIT);
    }
    zmq_msg_close(&part);
    return got;
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
    for (;;) {
        if (zmq_poll(items, 3, -1) < 0 && zmq_errno() != EINTR)
            break;
        if (items[2].revents & ZMQ_POLLIN)
            break;
        /* a batch of each, so neither direction waits on the other */
        for (int i = 0; i < 256 && (items[0].revents & ZMQ_POLLIN) && route(s, router); i++)
            ;
        for (int i = 0; i < 256 && (items[1].revents & ZMQ_POLLIN) && forward(replies, router); i++)
            ;
    }
    ts_log(s->log, TS_LOG_INFO, "stopping", NULL);
    return 0;
}
