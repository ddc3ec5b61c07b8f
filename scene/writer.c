/* scene/writer.c - see writer.h. Runs as a czmq actor. */
#include "writer.h"

#include <czmq.h>
#include <malloc.h>
#include <pthread.h>
#include <sqlite3.h>

#include "clock.h"
#include "err.h"
#include "pending.h"
#include "wire.h"

#define RETRY_LOG_US 10000000  /* a failing store is logged again every 10 s */
#define TRIM_US      10000000  /* the heap's free pages go back to the system every 10 s */
#define EXPIRE_BATCH 1000      /* history rows deleted at most per flush: small transactions */
#define HIST_MAX     (1 << 20) /* history rows held while the store fails: 80 MiB; then the oldest steps go */
#define STOP_RETRY_US 5000000  /* at a stop, a failing store is retried this long */
#define STOP_RETRY_MS 200

typedef struct {
    scene_store_t *store;
    int            workers, flush_ms;
    int64_t        history_keep_us;
    ts_log_t      *log;
    scene_stats_t *stats;
    scene_health_t *health;
    int64_t        lost;      /* set at the stop: rows never written */
} config_t;

struct scene_writer_t {
    zactor_t *actor;
    config_t  cfg;
};

typedef struct {
    config_t  *cfg;
    scene_pending_t *pending; /* each player's latest row, for the next flush */
    void     **to_worker;     /* PUSH handles, by worker */
    zsock_t  **to_worker_s;
    scene_history_row_t *hist;   /* history rows for the next flush */
    size_t     nhist, hist_size;
    int64_t    hist_taken;       /* history rows taken so far: each row's seen */
    scene_sender_t sender;    /* to the workers */
    bool       failing;
    int64_t    last_error_log;
} state_t;

static void answer_query(state_t *st, const scene_query_t *q)
{
    if (q->worker < 0 || q->worker >= st->cfg->workers)
        return;
    scene_load_t load = { .player_id = q->player_id };
    const scene_row_t *have = scene_pending_get(st->pending, q->player_id);
    if (have) {
        load.row = *have;
        load.found = 1;
    } else {
        int rc = scene_store_get(st->cfg->store, q->player_id, &load.row);
        if (rc < 0)
            ts_log(st->cfg->log, TS_LOG_ERROR, "store_read_failed", "player=%llu", (unsigned long long) q->player_id);
        load.found = rc == 1;
    }
    const void *parts[] = { "L", &load };
    const size_t lens[] = { 1, sizeof load };
    scene_send(&st->sender, st->to_worker[q->worker], 0, 2, parts, lens);   /* failed: the worker asks again */
}

/* History rows (closed steps) for the next flush, each numbered in its
 * seen. While the store fails they pile up: past HIST_MAX they are
 * coalesced (one row a player's step), and past it still the oldest steps
 * are dropped, counted and logged. */
static void keep_history(state_t *st, const scene_history_row_t *rows, size_t n)
{
    if (st->nhist + n > HIST_MAX)
        st->nhist = scene_history_coalesce(st->hist, st->nhist);
    if (st->nhist + n > HIST_MAX) {   /* sorted by step now: the oldest first */
        size_t drop = st->nhist + n - HIST_MAX;
        drop = drop > st->nhist ? st->nhist : drop;
        memmove(st->hist, st->hist + drop, (st->nhist - drop) * sizeof *st->hist);
        st->nhist -= drop;
        ts_metric_add(st->cfg->stats->store_dropped, drop);
        ts_log(st->cfg->log, TS_LOG_ERROR, "store_history_dropped", "rows=%zu held=%d", drop, HIST_MAX);
    }
    if (st->nhist + n > st->hist_size) {
        size_t size = st->hist_size ? st->hist_size : 256;
        while (size < st->nhist + n)
            size *= 2;
        scene_history_row_t *grown = realloc(st->hist, size * sizeof *grown);
        if (!grown) {
            ts_metric_add(st->cfg->stats->store_dropped, n);
            return;
        }
        st->hist = grown;
        st->hist_size = size;
    }
    for (size_t i = 0; i < n; i++) {
        st->hist[st->nhist + i] = rows[i];
        st->hist[st->nhist + i].seen = ++st->hist_taken;
    }
    st->nhist += n;
}

/* Handles one message of the inbox. */
static void on_message(state_t *st, zmsg_t *msg)
{
    zframe_t *kind = zmsg_first(msg), *body = zmsg_next(msg);
    if (!kind || !body || zframe_size(kind) != 1)
        return;
    char k = (char) zframe_data(kind)[0];
    if (k == 'R' && zframe_size(body) % sizeof(scene_row_t) == 0) {
        const scene_row_t *rows = (const scene_row_t *) zframe_data(body);
        for (size_t i = 0; i < zframe_size(body) / sizeof(scene_row_t); i++)
            scene_pending_put(st->pending, &rows[i]);   /* out of memory: the next exchange's row comes */
    } else if (k == 'H' && zframe_size(body) % sizeof(scene_history_row_t) == 0) {
        keep_history(st, (const scene_history_row_t *) zframe_data(body), zframe_size(body) / sizeof(scene_history_row_t));
    } else if (k == 'Q' && zframe_size(body) == sizeof(scene_query_t)) {
        scene_query_t q;
        memcpy(&q, zframe_data(body), sizeof q);
        answer_query(st, &q);
    }
}

/* One transaction with every pending row and history row. Returns 0, or
 * -1 with everything kept for the next try. */
static int flush(state_t *st)
{
    if (st->cfg->history_keep_us > 0)   /* retention, a small batch a flush */
        scene_store_expire_history(st->cfg->store, ts_clock_real_us() - st->cfg->history_keep_us, EXPIRE_BATCH);
    size_t n = scene_pending_size(st->pending);
    ts_metric_set(st->cfg->stats->store_pending, (int64_t) (n + st->nhist));
    if (n == 0 && st->nhist == 0)
        return 0;
    /* in key order: each b-tree page is visited once, in turn, not at random */
    const scene_row_t *rows = scene_pending_sorted(st->pending);
    st->nhist = scene_history_coalesce(st->hist, st->nhist);
    char err[TS_ERR_MAX];
    int64_t t0 = ts_clock_mono_us();
    int rc = scene_store_put_all(st->cfg->store, rows, n, st->hist, st->nhist, err);
    int64_t took = ts_clock_mono_us() - t0;
    ts_metric_set(st->cfg->stats->sqlite_memory, sqlite3_memory_used());
    if (rc == 0) {
        scene_pending_clear(st->pending);
        st->nhist = 0;
        ts_metric_add(st->cfg->stats->flushes, 1);
        ts_metric_observe(st->cfg->stats->flush_seconds, (double) took / 1e6);
        ts_metric_observe(st->cfg->stats->flush_rows, (double) n);
        ts_metric_set(st->cfg->stats->store_pending, 0);
        if (st->failing) {
            ts_log(st->cfg->log, TS_LOG_WARN, "store_recovered", "rows=%zu", n);
            ts_metric_set(st->cfg->stats->store_failing, 0);
            if (st->cfg->health)
                scene_health_store_ok(st->cfg->health);
        }
        st->failing = false;
        return 0;
    }
    ts_metric_add(st->cfg->stats->flush_errors, 1);
    ts_metric_set(st->cfg->stats->store_failing, 1);
    if (st->cfg->health)
        scene_health_store_failed(st->cfg->health, err, (int64_t) (n + st->nhist));
    int64_t now = ts_clock_mono_us();
    if (!st->failing || now - st->last_error_log >= RETRY_LOG_US) {
        ts_log(st->cfg->log, TS_LOG_ERROR, "store_write_failed", "rows=%zu history_rows=%zu error=\"%s\" action=retry",
               n, st->nhist, err);
        st->last_error_log = now;
    }
    st->failing = true;
    return -1;
}

/* The last flush at a stop: retried for STOP_RETRY_US while the store
 * fails, then what is left is given up, counted and logged, and kept in
 * cfg->lost for the scene's exit status. */
static void last_flush(state_t *st)
{
    int64_t give_up = ts_clock_mono_us() + STOP_RETRY_US;
    while (flush(st) < 0 && ts_clock_mono_us() < give_up)
        zclock_sleep(STOP_RETRY_MS);
    size_t rows = scene_pending_size(st->pending), hist = st->nhist;
    if (rows + hist == 0)
        return;
    st->cfg->lost = (int64_t) (rows + hist);
    ts_metric_add(st->cfg->stats->store_dropped, rows + hist);
    ts_log(st->cfg->log, TS_LOG_ERROR, "store_rows_lost", "rows=%zu history_rows=%zu retried_s=%.0f", rows, hist,
           STOP_RETRY_US / 1e6);
}

/* A backlog (queues that grew while the CPU was busy elsewhere) leaves free
 * pages inside glibc's arenas, which it keeps: the scene's RSS would stay at
 * its highest backlog for good. malloc_trim hands them back. */
static void give_back_memory(void)
{
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}

static void drain(state_t *st, zsock_t *inbox)
{
    zmsg_t *msg;
    while (zsock_events(inbox) & ZMQ_POLLIN && (msg = zmsg_recv(inbox))) {
        on_message(st, msg);
        zmsg_destroy(&msg);
    }
}

static void writer_actor(zsock_t *pipe, void *args)
{
    config_t *cfg = args;
    pthread_setname_np(pthread_self(), "ts-store");   /* top -H, /proc/PID/task/TID/comm */
    state_t st = { .cfg = cfg };
    st.sender = (scene_sender_t) { .failed = cfg->stats->send_failed_worker, .log = cfg->log, .to = "worker" };
    zsock_t *inbox = zsock_new_pull("@" SCENE_EP_STORE);
    st.pending = scene_pending_new();
    st.to_worker = calloc((size_t) cfg->workers, sizeof(void *));
    st.to_worker_s = calloc((size_t) cfg->workers, sizeof(zsock_t *));
    bool ok = inbox && st.pending && st.to_worker && st.to_worker_s;
    if (ok) {
        zsock_set_rcvhwm(inbox, 0);
        char ep[64];
        for (int w = 0; w < cfg->workers && ok; w++) {
            st.to_worker_s[w] = zsock_new_push(scene_worker_endpoint(ep, '>', w));
            ok = st.to_worker_s[w] != NULL;
            if (ok) {
                zsock_set_sndhwm(st.to_worker_s[w], 0);
                st.to_worker[w] = zsock_resolve(st.to_worker_s[w]);
            }
        }
    }
    zsock_signal(pipe, ok ? 0 : 1);
    zpoller_t *poller = ok ? zpoller_new(pipe, inbox, NULL) : NULL;
    /* the workers hold rows up to scene_hold_us first: flushing that much
     * sooner keeps a row's way to the disk within flush_ms */
    const int64_t period = (int64_t) cfg->flush_ms * 1000 - scene_hold_us(cfg->flush_ms);
    int64_t next_flush = ts_clock_mono_us() + period, next_trim = next_flush + TRIM_US;
    while (poller) {
        int64_t now = ts_clock_mono_us();
        int wait = next_flush > now ? (int) ((next_flush - now + 999) / 1000) : 0;
        void *which = zpoller_wait(poller, wait);
        if (which == pipe) {
            if (scene_pipe_says_stop(pipe))
                break;
        } else if (which == inbox) {
            drain(&st, inbox);
        } else if (zpoller_terminated(poller)) {
            break;
        }
        if (ts_clock_mono_us() >= next_flush) {
            flush(&st);
            next_flush = ts_clock_mono_us() + period;
        }
        if (ts_clock_mono_us() >= next_trim) {
            give_back_memory();
            next_trim = ts_clock_mono_us() + TRIM_US;
        }
    }
    if (inbox && st.pending) {   /* last words: everything the workers sent, then a final flush */
        drain(&st, inbox);
        last_flush(&st);
    }
    zpoller_destroy(&poller);
    for (int w = 0; st.to_worker_s && w < cfg->workers; w++)
        zsock_destroy(&st.to_worker_s[w]);
    free(st.to_worker);
    free(st.to_worker_s);
    free(st.hist);
    scene_pending_destroy(&st.pending);
    zsock_destroy(&inbox);
}

scene_writer_t *scene_writer_new(scene_store_t *store, int workers, int flush_ms, int64_t history_keep_us,
                                 ts_log_t *log, scene_stats_t *stats, scene_health_t *health)
{
    scene_writer_t *self = calloc(1, sizeof *self);
    if (!self) {
        scene_store_destroy(&store);
        return NULL;
    }
    self->cfg = (config_t) { store, workers, flush_ms, history_keep_us, log, stats, health, 0 };
    self->actor = zactor_new(writer_actor, &self->cfg);
    if (!self->actor) {
        scene_store_destroy(&self->cfg.store);
        free(self);
        return NULL;
    }
    return self;
}

int64_t scene_writer_stop(scene_writer_t *self)
{
    zactor_destroy(&self->actor);   /* waits for the last flush */
    return self->cfg.lost;
}

void scene_writer_destroy(scene_writer_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    scene_writer_t *self = *self_p;
    zactor_destroy(&self->actor);
    scene_store_destroy(&self->cfg.store);
    free(self);
    *self_p = NULL;
}
