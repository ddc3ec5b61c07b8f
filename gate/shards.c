/* gate/shards.c - see shards.h. czmq builds and configures the sockets; the
 * hot path calls libzmq directly on them, without message objects. */
#include "shards.h"

#include <czmq.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "curve.h"
#include "err.h"
#include "shard.h"

#define SHARD_HWM 10000   /* batches queued each way before sends are refused */

typedef struct {
    char     *endpoint;
    zsock_t  *sock;
    void     *handle;      /* the libzmq socket inside sock */
    int64_t   last_pong;
    int64_t   next_ping;
    uint64_t  nonce;
    bool      was_up;
    bool      degraded;    /* the last PONG's TS_ENV_DEGRADED */
    int       taking;      /* ZeroMQ's POLLOUT as last asked: 1, 0, or -1 to ask again */
    uint8_t  *batch;       /* TS_ENV_BATCH_MAX: envelopes waiting for flush */
    size_t    batch_len;
    int64_t   batch_due;   /* monotonic: when the batch must leave */
    zmq_msg_t in;          /* the batch being read, from in_off on */
    const uint8_t *in_data;   /* in's bytes, read once a batch rather than once an envelope */
    size_t    in_len, in_off;
    bool      in_open;
} shard_t;

struct gate_shards_t {
    shard_t  *shards;
    int       count;
    ts_log_t *log;
    ts_decoder_t *dec;   /* replies are decoded into this, one after another */
    gate_shards_unsent_fn *unsent;
    void     *unsent_arg;
    int64_t   linger_us;
};

/* scene: the shard's public certificate, or NULL for no CurveZMQ. id: this
 * gate's ZeroMQ identity, the same for its whole run (see gate_shards_new). */
static int open_shard(shard_t *s, const char *endpoint, const char *id, zcert_t *gate, zcert_t *scene,
                      int64_t now_us, char *err)
{
    zmq_msg_init(&s->in);
    s->endpoint = strdup(endpoint);
    s->batch = malloc(TS_ENV_BATCH_MAX);
    s->sock = zsock_new(ZMQ_DEALER);
    if (!s->endpoint || !s->batch || !s->sock) {
        snprintf(err, TS_ERR_MAX, "cannot create a ZeroMQ socket");
        return -1;
    }
    zsock_set_immediate(s->sock, 1);
    zsock_set_identity(s->sock, id);
    zsock_set_linger(s->sock, 500);   /* let CLOSEs out at shutdown */
    zsock_set_sndhwm(s->sock, SHARD_HWM);
    zsock_set_rcvhwm(s->sock, SHARD_HWM);
    /* A shard back from an outage is found within half a second, so with a
     * PING (200 ms) and the client's next exchange (1 s) its players are
     * measured again within 2 s; a dead shard costs one connect a 500 ms. */
    zsock_set_reconnect_ivl(s->sock, 100);
    zsock_set_reconnect_ivl_max(s->sock, 500);
    /* PING/PONG says up or down (GATE_SHARD_DEAD_US); the ZMTP heartbeat
     * only recycles a connection that has gone silent, and is slower, so a
     * shard that stalls a moment keeps its connection and what is queued */
    zsock_set_heartbeat_ivl(s->sock, 500);
    zsock_set_heartbeat_timeout(s->sock, 2000);
    if (scene) {
        zcert_apply(gate, s->sock);
        zsock_set_curve_serverkey(s->sock, zcert_public_txt(scene));
    }
    if (zsock_connect(s->sock, "%s", endpoint) < 0) {
        snprintf(err, TS_ERR_MAX, "cannot connect to scene endpoint '%s'", endpoint);
        return -1;
    }
    s->handle = zsock_resolve(s->sock);
    s->last_pong = now_us;   /* a shard is given the benefit of the doubt at start */
    s->was_up = true;
    s->taking = -1;
    return 0;
}

/* The shards' certificates, in shard order: one for all, or one each. */
static zcert_t **load_scene_certs(const char *list, int count, char *err)
{
    zcert_t **certs = calloc((size_t) count, sizeof *certs);
    char *copy = strdup(list), *save = NULL;
    bool ok = certs && copy;
    int n = 0;
    for (char *path = ok ? strtok_r(copy, ",", &save) : NULL; ok && path; path = strtok_r(NULL, ",", &save)) {
        if (n == count) {
            snprintf(err, TS_ERR_MAX, "more scene certificates than scenes");
            ok = false;
        } else {
            ok = (certs[n++] = ts_curve_load(path, false, err)) != NULL;
        }
    }
    if (ok && n == 1) {
        for (int i = 1; i < count && ok; i++)
            ok = (certs[i] = zcert_dup(certs[0])) != NULL;
    } else if (ok && n != count) {
        snprintf(err, TS_ERR_MAX, "%d scene certificates for %d scenes (give one for all, or one each)", n, count);
        ok = false;
    }
    if (!ok && certs) {
        for (int i = 0; i < count; i++)
            zcert_destroy(&certs[i]);
        free(certs);
        certs = NULL;
    }
    free(copy);
    return certs;
}

gate_shards_t *gate_shards_new(const char *endpoints, const gate_curve_t *curve, ts_log_t *log, int64_t now_us,
                               char *err)
{
    gate_shards_t *self = calloc(1, sizeof *self);
    char *list = strdup(endpoints ? endpoints : "");
    if (!self || !list) {
        snprintf(err, TS_ERR_MAX, "out of memory");
        free(list);
        free(self);
        return NULL;
    }
    snprintf(err, TS_ERR_MAX, "out of memory");
    self->log = log;
    self->dec = ts_decoder_new();
    int n = 1;
    for (const char *p = list; *p; p++)
        n += *p == ',';
    self->shards = calloc((size_t) n, sizeof(shard_t));
    zcert_t *gate = NULL, **scenes = NULL;
    bool use_curve = curve && curve->scene_certs;
    bool ok = self->shards && self->dec;
    if (ok && use_curve) {
        gate = curve->gate_cert ? ts_curve_load(curve->gate_cert, true, err) : zcert_new();
        scenes = gate ? load_scene_certs(curve->scene_certs, n, err) : NULL;
        ok = scenes != NULL;
    }
    /* One identity for the gate's whole run, not one per connection as
     * ZeroMQ would pick: a reconnect is the same gate to a scene, and a
     * restarted gate a new one, whose predecessor's players the scene marks
     * offline once it falls silent (scene/gates.h). */
    zuuid_t *uuid = zuuid_new();
    char id[40];
    snprintf(id, sizeof id, "gate-%s", uuid ? zuuid_str(uuid) : "");
    zuuid_destroy(&uuid);
    ok = ok && strlen(id) > 5;
    char *save = NULL;
    for (char *ep = strtok_r(list, ",", &save); ep && ok; ep = strtok_r(NULL, ",", &save)) {
        int i = self->count++;
        ok = open_shard(&self->shards[i], ep, id, gate, scenes ? scenes[i] : NULL, now_us, err) == 0;
    }
    if (ok && self->count == 0) {
        snprintf(err, TS_ERR_MAX, "no scene endpoints given");
        ok = false;
    }
    for (int i = 0; scenes && i < n; i++)
        zcert_destroy(&scenes[i]);
    free(scenes);
    zcert_destroy(&gate);
    free(list);
    if (!ok)
        gate_shards_destroy(&self);
    return self;
}

void gate_shards_destroy(gate_shards_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    gate_shards_t *self = *self_p;
    for (int i = 0; self->shards && i < self->count; i++) {
        zsock_destroy(&self->shards[i].sock);
        zmq_msg_close(&self->shards[i].in);
        free(self->shards[i].endpoint);
        free(self->shards[i].batch);
    }
    free(self->shards);
    ts_decoder_destroy(&self->dec);
    free(self);
    *self_p = NULL;
}

int gate_shards_count(const gate_shards_t *self) { return self->count; }

int gate_shards_route(const gate_shards_t *self, uint64_t player_id)
{
    return ts_shard_of(player_id, self->count);
}

int gate_shards_fd(const gate_shards_t *self, int i) { return zsock_fd(self->shards[i].sock); }

bool gate_shards_up(const gate_shards_t *self, int i, int64_t now_us)
{
    return now_us - self->shards[i].last_pong <= GATE_SHARD_DEAD_US;
}

bool gate_shards_taking(gate_shards_t *self, int i)
{
    shard_t *s = &self->shards[i];
    if (s->taking < 0) {
        int events = 0;
        size_t len = sizeof events;
        s->taking = zmq_getsockopt(s->handle, ZMQ_EVENTS, &events, &len) == 0 && (events & ZMQ_POLLOUT);
    }
    return s->taking == 1;
}

int gate_shards_up_count(const gate_shards_t *self, int64_t now_us)
{
    int n = 0;
    for (int i = 0; i < self->count; i++)
        n += gate_shards_up(self, i, now_us);
    return n;
}

int gate_shards_degraded_count(const gate_shards_t *self, int64_t now_us, uint64_t *first64)
{
    int n = 0;
    *first64 = 0;
    for (int i = 0; i < self->count; i++)
        if (gate_shards_up(self, i, now_us) && self->shards[i].degraded) {
            n++;
            *first64 |= i < 64 ? 1ULL << i : 0;
        }
    return n;
}

void gate_shards_on_unsent(gate_shards_t *self, gate_shards_unsent_fn *fn, void *arg)
{
    self->unsent = fn;
    self->unsent_arg = arg;
}

/* Sends shard s's batch; one it will not take now is handed back envelope
 * by envelope from a copy, so the callback may fill a fresh batch. */
static size_t flush_one(gate_shards_t *self, shard_t *s)
{
    size_t len = s->batch_len;
    s->taking = -1;
    if (len == 0)
        return 0;
    s->batch_len = 0;
    if (zmq_send(s->handle, s->batch, len, ZMQ_DONTWAIT) == (int) len)
        return 0;
    size_t lost = 0, off = 0;
    uint8_t *copy = malloc(len);
    if (copy)
        memcpy(copy, s->batch, len);
    ts_env_t env;
    while (copy && ts_env_next(self->dec, copy, len, &off, &env) == 1) {
        lost++;
        if (self->unsent)
            self->unsent(self->unsent_arg, &env);
    }
    free(copy);
    if (s->batch_len)   /* the callback queued some again: retry in a while, not at once */
        s->batch_due = ts_clock_mono_us() + GATE_SHARD_RETRY_US;
    return lost;
}

void gate_shards_set_linger(gate_shards_t *self, int64_t linger_us) { self->linger_us = linger_us; }

int gate_shards_send(gate_shards_t *self, int i, const ts_env_t *env)
{
    shard_t *s = &self->shards[i];
    size_t was = s->batch_len;
    if (!ts_env_append(s->batch, TS_ENV_BATCH_MAX, &s->batch_len, env)) {
        flush_one(self, s);
        was = 0;
        if (!ts_env_append(s->batch, TS_ENV_BATCH_MAX, &s->batch_len, env))
            return -1;
    }
    if (was == 0)
        s->batch_due = self->linger_us ? ts_clock_mono_us() + self->linger_us : 0;
    return 0;
}

size_t gate_shards_flush(gate_shards_t *self, int64_t now_us)
{
    size_t lost = 0;
    for (int i = 0; i < self->count; i++)
        if (self->shards[i].batch_due <= now_us)
            lost += flush_one(self, &self->shards[i]);
    return lost;
}

int64_t gate_shards_due(const gate_shards_t *self)
{
    int64_t due = INT64_MAX;
    for (int i = 0; i < self->count; i++)
        if (self->shards[i].batch_len && self->shards[i].batch_due < due)
            due = self->shards[i].batch_due;
    return due;
}

/* Opens the next message from s: false when none waits. A message of more
 * than one frame, or larger than any batch, is read as bad bytes. */
static bool open_next(shard_t *s)
{
    if (zmq_msg_recv(&s->in, s->handle, ZMQ_DONTWAIT) < 0)
        return false;
    s->in_open = true;
    s->in_data = zmq_msg_data(&s->in);
    s->in_len = zmq_msg_size(&s->in);
    s->in_off = 0;
    if (zmq_msg_more(&s->in) || s->in_len > TS_ENV_BATCH_MAX || s->in_len == 0) {
        int more = zmq_msg_more(&s->in);
        size_t sz = sizeof more;
        while (more) {
            zmq_recv(s->handle, NULL, 0, ZMQ_DONTWAIT);
            if (zmq_getsockopt(s->handle, ZMQ_RCVMORE, &more, &sz) != 0)
                more = 0;
        }
        s->in_off = SIZE_MAX;   /* refused whole */
    }
    return true;
}

int gate_shards_recv(gate_shards_t *self, int i, ts_env_t *env, int64_t now_us)
{
    shard_t *s = &self->shards[i];
    for (;;) {
        if (!s->in_open && !open_next(s))
            return 0;
        if (s->in_off == SIZE_MAX) {
            s->in_open = false;
            return -1;
        }
        int rc = ts_env_next(self->dec, s->in_data, s->in_len, &s->in_off, env);
        if (rc <= 0)
            s->in_open = false;
        if (rc < 0)
            return -1;
        if (rc == 0)
            continue;
        if (env->kind == TS_ENV_PONG) {
            if (env->seq <= s->nonce && env->seq + 5 > s->nonce) {   /* recent enough */
                s->last_pong = now_us;
                bool degraded = (env->flags & TS_ENV_DEGRADED) != 0;
                if (degraded != s->degraded)
                    ts_log(self->log, degraded ? TS_LOG_WARN : TS_LOG_INFO,
                           degraded ? "shard_degraded" : "shard_recovered", "shard=%d endpoint=%s reason=%s", i,
                           s->endpoint, degraded ? "store_failing" : "store_writing");
                s->degraded = degraded;
            }
            continue;
        }
        return 1;
    }
}


uint64_t gate_shards_tick(gate_shards_t *self, int64_t now_us)
{
    uint64_t came_up = 0;
    for (int i = 0; i < self->count; i++) {
        shard_t *s = &self->shards[i];
        if (now_us >= s->next_ping) {
            ts_env_t ping = { .kind = TS_ENV_PING, .seq = ++s->nonce };
            gate_shards_send(self, i, &ping);
            s->next_ping = now_us + GATE_SHARD_PING_US;
        }
        bool up = gate_shards_up(self, i, now_us);
        if (up != s->was_up)
            ts_log(self->log, up ? TS_LOG_INFO : TS_LOG_WARN, up ? "shard_up" : "shard_down",
                   "shard=%d endpoint=%s", i, s->endpoint);
        if (up && !s->was_up && i < 64)
            came_up |= 1ULL << i;
        s->was_up = up;
    }
    return came_up;
}
