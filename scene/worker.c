/* scene/worker.c - see worker.h. Runs as a czmq actor.
 *
 * A player who shows up is created at once and its stored row is asked of
 * the writer; SYNCs are taken meanwhile (they need no history, and the
 * gate has answered them), while SYNC_ACKs wait (up to DEFER_MAX) until the
 * row is in, so smoothing always continues from the stored values. A row
 * that does not come within SCENE_LOAD_RETRY_US is asked for again, and
 * after SCENE_LOAD_ASKS asks the player starts afresh (counted and logged)
 * rather than wait for ever with its SYNC_ACKs unanswered. Replies leave
 * for the gates in batches (one per gate) each time the inbox runs dry:
 * under load in large batches, when idle at once. Dirty rows leave for the
 * writer in chunks of ROWS_CHUNK, or once the oldest has waited hold_us. */
#include "worker.h"

#include <czmq.h>
#include <pthread.h>

#include "clock.h"
#include "envelope.h"
#include "history.h"
#include "idkey.h"
#include "move.h"
#include "msg.h"
#include "shard.h"
#include "wire.h"

#define DEFER_MAX   8
#define TICK_US     100000
#define GATE_ID_MAX 256
#define ROWS_CHUNK  256     /* rows per message to the writer: small, same-sized
                               messages keep the allocator from fragmenting */

typedef struct {
    ts_env_t env;
    uint8_t  gate[GATE_ID_MAX];
    size_t   gate_len;
} deferred_t;

typedef struct {
    scene_player_t *player;
    int64_t         last_seen;
    bool            dirty, loading;
    int64_t         asked_at;           /* loading: when the row was last asked for (0: not sent) */
    int             asks;
    uint8_t         gate[GATE_ID_MAX];  /* the gate holding the session */
    size_t          gate_len;
    uint64_t        conn;
    deferred_t     *deferred;           /* DEFER_MAX, while loading */
    int             ndeferred;
    scene_history_t history;            /* the current step of the player's latency history */
    scene_row_t    *adopt;              /* a row released by the player's old shard, merged once loaded */
} entry_t;

typedef struct {
    scene_worker_options_t opt;
    zhashx_t  *players;          /* player_id -> entry_t* */
    entry_t  **dirty;
    size_t     ndirty, dirty_size;
    int64_t    dirty_since;      /* when the oldest unsent dirty row was marked */
    scene_row_t chunk[ROWS_CHUNK];
    scene_history_row_t steps[ROWS_CHUNK];   /* finished history steps, for the writer */
    int        nsteps;
    void      *replies, *store;  /* PUSH handles */
    scene_sender_t to_router, to_writer;
    zmq_msg_t  body;             /* the inbox message being read */
    uint8_t   *out;              /* TS_ENV_BATCH_MAX: replies for one gate */
    size_t     out_len;
    uint8_t    out_gate[GATE_ID_MAX];
    size_t     out_gate_len;
} state_t;

struct scene_worker_t {
    zactor_t              *actor;
    scene_worker_options_t opt;
};

int scene_worker_of(uint64_t player_id, int count)
{
    return (int) (ts_shard_mix(player_id) % (uint64_t) count);
}


static void entry_free(void **item)
{
    entry_t *e = *item;
    if (!e)
        return;
    scene_player_destroy(&e->player);
    free(e->adopt);
    free(e->deferred);
    free(e);
    *item = NULL;
}

static void mark_dirty(state_t *st, entry_t *e)
{
    if (e->dirty)
        return;
    if (st->ndirty == st->dirty_size) {
        size_t size = st->dirty_size ? st->dirty_size * 2 : 256;
        entry_t **grown = realloc(st->dirty, size * sizeof *grown);
        if (!grown)
            return;
        st->dirty = grown;
        st->dirty_size = size;
    }
    e->dirty = true;
    if (st->ndirty == 0)
        st->dirty_since = ts_clock_mono_us();
    st->dirty[st->ndirty++] = e;
}

/* Finished history steps go to the writer as 'H' | scene_history_row_t[n]. */
static void send_steps(state_t *st)
{
    if (st->nsteps == 0)
        return;
    const void *parts[] = { "H", st->steps };
    const size_t lens[] = { 1, (size_t) st->nsteps * sizeof st->steps[0] };
    scene_send(&st->to_writer, st->store, 0, 2, parts, lens);
    st->nsteps = 0;
}

static void keep_step(state_t *st, const scene_history_row_t *row)
{
    if (st->nsteps == ROWS_CHUNK)
        send_steps(st);
    st->steps[st->nsteps++] = *row;
}

/* An exchange (or a loss) in the player's history at server time real. */
static void history_add(state_t *st, entry_t *e, int64_t real, int64_t rtt, bool lost)
{
    scene_history_row_t done;
    if (scene_history_add(&e->history, scene_player_id(e->player), real, rtt, lost, &done))
        keep_step(st, &done);
}

/* Dirty rows go to the writer, each with its player's history step so
 * far (scene/history.h): a SIGKILL loses no more history than rows. The
 * closed steps go first: a row whose open step is a new one must never
 * reach the disk before the row of the step it closed. */
static void send_dirty(state_t *st)
{
    send_steps(st);
    for (size_t i = 0; i < st->ndirty;) {
        size_t n = 0;
        for (; n < ROWS_CHUNK && i < st->ndirty; n++, i++) {
            entry_t *e = st->dirty[i];
            scene_player_row(e->player, &st->chunk[n]);
            e->dirty = false;
            scene_history_open(&e->history, st->chunk[n].player_id, &st->chunk[n].step);
        }
        const void *parts[] = { "R", st->chunk };
        const size_t lens[] = { 1, n * sizeof st->chunk[0] };
        scene_send(&st->to_writer, st->store, 0, 2, parts, lens);   /* failed: only at shutdown */
    }
    st->ndirty = 0;
}

/* The replies gathered so far go to their gate as one batch. */
static void send_replies(state_t *st)
{
    if (st->out_len == 0)
        return;
    const void *parts[] = { st->out_gate, st->out };
    const size_t lens[] = { st->out_gate_len, st->out_len };
    scene_send(&st->to_router, st->replies, 0, 2, parts, lens);
    st->out_len = 0;
}

/* Adds env to the batch for gate, sending the batch first when it is for
 * another gate or might not hold one more envelope. */
static void reply(state_t *st, const uint8_t *gate, size_t gate_len, const ts_env_t *env)
{
    bool other_gate = gate_len != st->out_gate_len || memcmp(gate, st->out_gate, gate_len) != 0;
    if (st->out_len > 0 && (other_gate || st->out_len > TS_ENV_BATCH_MAX - TS_ENV_MAX))
        send_replies(st);
    if (st->out_len == 0) {
        memcpy(st->out_gate, gate, gate_len);
        st->out_gate_len = gate_len;
    }
    if (ts_env_append(st->out, TS_ENV_BATCH_MAX, &st->out_len, env))
        ts_metric_add(st->opt.stats->replies_out, 1);
}

/* Asks the writer for the player's stored row; sweep asks again if none
 * comes in time (or this send failed). */
static void ask_row(state_t *st, uint64_t player_id, entry_t *e, int64_t now)
{
    scene_query_t q = { .worker = st->opt.index, .player_id = player_id };
    const void *parts[] = { "Q", &q };
    const size_t lens[] = { 1, sizeof q };
    e->asks++;
    e->asked_at = scene_send(&st->to_writer, st->store, 0, 2, parts, lens) == 0 ? now : 0;
}

static void on_ack(state_t *st, entry_t *e, const uint8_t *gate, size_t gate_len, const ts_env_t *env);
static void count_flags(state_t *st, const scene_row_t *row, int sign);

/* The row the player's old shard released merged into this one's (scene/move.h). */
static void merge_adopted(state_t *st, entry_t *e, const scene_row_t *old)
{
    scene_row_t cur;
    scene_player_row(e->player, &cur);
    count_flags(st, &cur, -1);
    scene_move_merge(&cur, old);
    scene_player_restore(e->player, &cur);
    count_flags(st, &cur, 1);
}

/* The row is in (or given up on): a row adopted meanwhile is merged in,
 * then the SYNC_ACKs that waited for it are answered, in order. */
static void loaded(state_t *st, entry_t *e)
{
    e->loading = false;
    if (e->adopt) {
        merge_adopted(st, e, e->adopt);
        free(e->adopt);
        e->adopt = NULL;
    }
    for (int i = 0; i < e->ndeferred; i++)
        on_ack(st, e, e->deferred[i].gate, e->deferred[i].gate_len, &e->deferred[i].env);
    free(e->deferred);
    e->deferred = NULL;
    e->ndeferred = 0;
    mark_dirty(st, e);
}

static entry_t *find_or_create(state_t *st, uint64_t player_id, int64_t now)
{
    entry_t *e = zhashx_lookup(st->players, (void *) (uintptr_t) player_id);
    if (e)
        return e;
    e = calloc(1, sizeof *e);
    if (!e || !(e->player = scene_player_new(player_id))) {
        free(e);
        return NULL;
    }
    e->last_seen = now;
    e->loading = true;
    scene_history_init(&e->history, st->opt.history_step_us);
    zhashx_insert(st->players, (void *) (uintptr_t) player_id, e);
    ts_metric_add(st->opt.stats->players_in_memory, 1);
    ask_row(st, player_id, e, now);
    return e;
}

static void on_ack(state_t *st, entry_t *e, const uint8_t *gate, size_t gate_len, const ts_env_t *env)
{
    scene_result_t r;
    bool was_flagged = scene_player_lag_flag(e->player);
    if (!scene_player_on_ack(e->player, env->seq, env->t4, env->t5, env->t6_t3,
                             env->has_client_rtt ? &env->client_rtt : NULL,
                             env->has_client_offset ? &env->client_offset : NULL,
                             &st->opt.lag, ts_clock_real_us(), &r)) {
        ts_metric_add(st->opt.stats->unmatched_acks, 1);
        return;
    }
    ts_metric_add(st->opt.stats->exchanges, 1);
    history_add(st, e, ts_clock_real_us(), r.rtt, false);
    if (r.rtt < 0)
        ts_metric_add(st->opt.stats->invalid, 1);
    else
        ts_metric_observe(st->opt.stats->rtt, (double) r.rtt / 1e6);
    bool flagged = scene_player_lag_flag(e->player);
    if (flagged != was_flagged)
        ts_metric_add(st->opt.stats->flagged_lag, flagged ? 1 : (uint64_t) -1);
    if (flagged && !was_flagged) {
        scene_row_t after;
        scene_player_row(e->player, &after);
        ts_metric_add(st->opt.stats->lag_flags, 1);
        ts_log(st->opt.log, TS_LOG_INFO, "lag_flag_raised", "player=%llu client_rtt_us=%lld srtt_us=%lld",
               (unsigned long long) env->player_id, (long long) after.client_rtt_us, (long long) after.srtt_us);
    }
    mark_dirty(st, e);
    /* the client's message, encoded here: the gate passes it on unread */
    ts_msg_t m = { .type = TS_SYNC_RESULT, .seq = env->seq, .u.sync_result = { r.rtt, r.srtt, r.rttvar } };
    uint8_t body[TS_ENV_REPLY_MAX];
    ts_env_t res = { .kind = TS_ENV_SYNC_RESULT, .conn = env->conn, .player_id = env->player_id, .seq = env->seq,
                     .reply = body, .reply_len = ts_msg_encode(&m, body, sizeof body) };
    reply(st, gate, gate_len, &res);
}

static bool same_gate(const entry_t *e, const uint8_t *gate, size_t gate_len)
{
    return e->gate_len == gate_len && memcmp(e->gate, gate, gate_len) == 0;
}

/* The player is online, held by gate's connection conn. */
static void go_online(state_t *st, entry_t *e, const uint8_t *gate, size_t gate_len, uint64_t conn, int64_t real)
{
    if (!scene_player_online(e->player))
        ts_metric_add(st->opt.stats->online, 1);
    memcpy(e->gate, gate, gate_len);
    e->gate_len = gate_len;
    e->conn = conn;
    scene_player_set_online(e->player, true, real);
    mark_dirty(st, e);
}

static void go_offline(state_t *st, entry_t *e, int64_t real)
{
    ts_metric_add(st->opt.stats->online, (uint64_t) -1);
    scene_player_set_online(e->player, false, real);
    mark_dirty(st, e);
}

static void on_open(state_t *st, entry_t *e, const uint8_t *gate, size_t gate_len, const ts_env_t *env, int64_t real)
{
    if (scene_player_online(e->player) && !same_gate(e, gate, gate_len)) {
        /* the player logged in through another gate: the old one lets go */
        ts_env_t kick = { .kind = TS_ENV_KICK, .conn = e->conn, .player_id = env->player_id };
        reply(st, e->gate, e->gate_len, &kick);
    }
    go_online(st, e, gate, gate_len, env->conn, real);
}

static void on_close(state_t *st, entry_t *e, const uint8_t *gate, size_t gate_len, const ts_env_t *env, int64_t real)
{
    if (!scene_player_online(e->player) || e->conn != env->conn || !same_gate(e, gate, gate_len))
        return;   /* an old connection of a player who is on again elsewhere */
    go_offline(st, e, real);
}

/* An exchange through a gate, or its HELD, is that gate holding the
 * session: a player marked offline while it did (its gate fell silent a
 * moment, or this scene restarted under a running gate) is online again. */
static void on_held(state_t *st, entry_t *e, const uint8_t *gate, size_t gate_len, const ts_env_t *env)
{
    if (!scene_player_online(e->player))
        go_online(st, e, gate, gate_len, env->conn, ts_clock_real_us());
}

/* A gate fell silent (scene/gates.h): no session it held is online. */
static void on_gate_lost(state_t *st, const uint8_t *gate, size_t gate_len)
{
    int64_t real = ts_clock_real_us();
    size_t n = 0;
    for (entry_t *e = zhashx_first(st->players); e; e = zhashx_next(st->players))
        if (scene_player_online(e->player) && same_gate(e, gate, gate_len)) {
            go_offline(st, e, real);
            n++;
        }
    if (n)
        ts_log(st->opt.log, TS_LOG_WARN, "gate_lost", "worker=%d players_offline=%zu", st->opt.index, n);
}

static void on_envelope(state_t *st, const uint8_t *gate, size_t gate_len, const ts_env_t *env)
{
    int64_t now = ts_clock_mono_us();
    entry_t *e = find_or_create(st, env->player_id, now);
    if (!e)
        return;
    e->last_seen = now;
    switch (env->kind) {
    case TS_ENV_OPEN:
        on_open(st, e, gate, gate_len, env, ts_clock_real_us());
        break;
    case TS_ENV_CLOSE:
        on_close(st, e, gate, gate_len, env, ts_clock_real_us());
        break;
    case TS_ENV_HELD:
        on_held(st, e, gate, gate_len, env);
        break;
    case TS_ENV_SYNC: {   /* answered by the gate already; the exchange starts here */
        on_held(st, e, gate, gate_len, env);
        int speed = scene_player_on_sync(e->player, env->seq, now, env->t1, env->t2, &st->opt.speed);
        if (speed) {
            scene_row_t row;
            scene_player_row(e->player, &row);
            ts_metric_add(st->opt.stats->flagged_speed, (uint64_t) (int64_t) speed);
            if (speed > 0)
                ts_log(st->opt.log, TS_LOG_INFO, "speed_flag_raised", "player=%llu clock_rate_ppm=%lld",
                       (unsigned long long) env->player_id, (long long) row.clock_rate_ppm);
            mark_dirty(st, e);
        }
        break;
    }
    case TS_ENV_SYNC_ACK:
        on_held(st, e, gate, gate_len, env);
        if (!e->loading) {
            on_ack(st, e, gate, gate_len, env);
        } else if ((e->deferred || (e->deferred = calloc(DEFER_MAX, sizeof(deferred_t))))
                   && e->ndeferred < DEFER_MAX) {
            deferred_t *d = &e->deferred[e->ndeferred++];
            d->env = *env;
            memcpy(d->gate, gate, gate_len);
            d->gate_len = gate_len;
        } else {
            ts_metric_add(st->opt.stats->deferred_dropped, 1);
        }
        break;
    }
}

/* The flagged-players gauges follow players into and out of memory. */
static void count_flags(state_t *st, const scene_row_t *row, int sign)
{
    if (row->lag_flag)
        ts_metric_add(st->opt.stats->flagged_lag, (uint64_t) (int64_t) sign);
    if (row->speed_flag)
        ts_metric_add(st->opt.stats->flagged_speed, (uint64_t) (int64_t) sign);
}

static void on_load(state_t *st, const scene_load_t *load)
{
    entry_t *e = zhashx_lookup(st->players, (void *) (uintptr_t) load->player_id);
    if (!e || !e->loading)
        return;
    if (load->found) {
        scene_player_restore(e->player, &load->row);
        count_flags(st, &load->row, 1);
    }
    loaded(st, e);
}

/* A player released by its old shard (ticksync-admin reshard): merged
 * into this shard's row for it, now or once that row is in. */
static void on_adopt(state_t *st, const scene_row_t *old)
{
    entry_t *e = find_or_create(st, old->player_id, ts_clock_mono_us());
    if (!e)
        return;
    if (!e->loading) {
        merge_adopted(st, e, old);
        mark_dirty(st, e);
    } else if (e->adopt) {
        scene_move_merge(e->adopt, old);   /* a second release of the player while its row comes in */
    } else if ((e->adopt = malloc(sizeof *e->adopt))) {
        *e->adopt = *old;
    }
}

/* A player whose row has not come in time is asked for again, and after
 * SCENE_LOAD_ASKS asks starts afresh. */
static void chase_load(state_t *st, uint64_t player_id, entry_t *e, int64_t now)
{
    if (now - e->asked_at < SCENE_LOAD_RETRY_US)
        return;
    if (e->asks < SCENE_LOAD_ASKS) {
        ts_metric_add(st->opt.stats->load_retries, 1);
        ask_row(st, player_id, e, now);
        return;
    }
    ts_metric_add(st->opt.stats->loads_abandoned, 1);
    ts_log(st->opt.log, TS_LOG_WARN, "load_abandoned", "player=%llu asks=%d action=start_afresh",
           (unsigned long long) player_id, e->asks);
    loaded(st, e);
}

/* Takes one message from the inbox (no czmq message objects on the hot
 * path). False when the inbox is empty. */
static bool read_inbox(state_t *st, void *inbox)
{
    uint8_t kind, gate[GATE_ID_MAX + 1];
    scene_load_t load;
    scene_row_t adopted;
    bool more = false;
    int n = scene_recv_part(inbox, &kind, 1, ZMQ_DONTWAIT, &more);
    if (n < 0)
        return false;
    if (n == 1 && kind == 'E' && more) {
        int gn = scene_recv_part(inbox, gate, sizeof gate, 0, &more);
        if (more && zmq_msg_recv(&st->body, inbox, 0) >= 0) {
            more = zmq_msg_more(&st->body);
            size_t bn = zmq_msg_size(&st->body);
            const uint8_t *p = zmq_msg_data(&st->body);
            bool whole = gn > 0 && gn <= GATE_ID_MAX && !more && bn % sizeof(ts_env_t) == 0;
            for (size_t off = 0; whole && off < bn; off += sizeof(ts_env_t)) {
                ts_env_t env;   /* copied out: the message's bytes need not be aligned */
                memcpy(&env, p + off, sizeof env);
                on_envelope(st, gate, (size_t) gn, &env);
            }
        }
    } else if (n == 1 && kind == 'G' && more) {
        int gn = scene_recv_part(inbox, gate, sizeof gate, 0, &more);
        if (gn > 0 && gn <= GATE_ID_MAX && !more)
            on_gate_lost(st, gate, (size_t) gn);
    } else if (n == 1 && kind == 'L' && more) {
        int bn = scene_recv_part(inbox, &load, sizeof load, 0, &more);
        if (bn == (int) sizeof load && !more)
            on_load(st, &load);
    } else if (n == 1 && kind == 'A' && more) {
        int bn = scene_recv_part(inbox, &adopted, sizeof adopted, 0, &more);
        if (bn == (int) sizeof adopted && !more)
            on_adopt(st, &adopted);
    }
    scene_recv_rest(inbox, more);   /* whatever is left of a malformed message */
    return true;
}

/* Loss accounting, and eviction of players idle past idle_us. */
static void sweep(state_t *st, int64_t now)
{
    int64_t real = ts_clock_real_us();
    zlistx_t *gone = zlistx_new();
    for (entry_t *e = zhashx_first(st->players); e; e = zhashx_next(st->players)) {
        if (e->loading)
            chase_load(st, (uint64_t) (uintptr_t) zhashx_cursor(st->players), e, now);
        int lost = scene_player_expire(e->player, now, real);
        if (lost) {
            ts_metric_add(st->opt.stats->lost, (uint64_t) lost);
            mark_dirty(st, e);
        }
        for (int i = 0; i < lost; i++)
            history_add(st, e, real, -1, true);
        scene_history_row_t done;   /* a silent player's last step, once it is over */
        if (scene_history_flush(&e->history, scene_player_id(e->player), real, &done))
            keep_step(st, &done);
        /* an online player stays: its gate holds the session, and the gauge
         * of players online counts the players in memory */
        if (!e->dirty && !e->loading && !scene_player_online(e->player) && now - e->last_seen > st->opt.idle_us
            && gone)
            zlistx_add_end(gone, (void *) zhashx_cursor(st->players));
    }
    for (void *key = gone ? zlistx_first(gone) : NULL; key; key = zlistx_next(gone)) {
        entry_t *e = zhashx_lookup(st->players, key);
        scene_history_row_t done;   /* the step so far: if the player comes back in it, a second part adds up */
        if (scene_history_flush(&e->history, scene_player_id(e->player), INT64_MAX, &done))
            keep_step(st, &done);
        scene_row_t row;
        scene_player_row(e->player, &row);
        count_flags(st, &row, -1);
        zhashx_delete(st->players, key);
        ts_metric_add(st->opt.stats->players_in_memory, (uint64_t) -1);
    }
    zlistx_destroy(&gone);
}

static void worker_actor(zsock_t *pipe, void *args)
{
    state_t st = { .opt = *(scene_worker_options_t *) args };
    pthread_setname_np(pthread_self(), "ts-worker");
    st.to_router = (scene_sender_t) { .failed = st.opt.stats->send_failed_router, .log = st.opt.log, .to = "router" };
    st.to_writer = (scene_sender_t) { .failed = st.opt.stats->send_failed_writer, .log = st.opt.log, .to = "writer" };
    char ep[64];
    zsock_t *inbox = zsock_new_pull(scene_worker_endpoint(ep, '@', st.opt.index));
    zsock_t *replies = zsock_new_push(">" SCENE_EP_REPLIES);
    zsock_t *store = zsock_new_push(">" SCENE_EP_STORE);
    st.players = zhashx_new();
    st.out = malloc(TS_ENV_BATCH_MAX);
    zmq_msg_init(&st.body);
    bool ok = inbox && replies && store && st.players && st.out;
    if (ok) {
        zsock_set_rcvhwm(inbox, 0);
        zsock_set_sndhwm(replies, 0);
        zsock_set_sndhwm(store, 0);
        zsock_set_linger(store, -1);
        st.replies = zsock_resolve(replies);
        st.store = zsock_resolve(store);
        zhashx_set_key_hasher(st.players, ts_idkey_hash);
        zhashx_set_key_comparator(st.players, ts_idkey_cmp);
        zhashx_set_key_duplicator(st.players, NULL);
        zhashx_set_key_destructor(st.players, NULL);
        zhashx_set_destructor(st.players, entry_free);
    }
    zsock_signal(pipe, ok ? 0 : 1);
    zpoller_t *poller = ok ? zpoller_new(pipe, inbox, NULL) : NULL;
    int64_t next_sweep = ts_clock_mono_us() + TICK_US;
    while (poller) {
        int wait = TICK_US / 1000;
        if (st.ndirty) {
            int64_t left = st.dirty_since + st.opt.hold_us - ts_clock_mono_us();
            wait = left > 0 ? (int) ((left + 999) / 1000) : 0;
        }
        void *which = zpoller_wait(poller, wait);
        if (which == pipe) {
            if (scene_pipe_says_stop(pipe))
                break;
        } else if (which == inbox) {
            for (int i = 0; i < 4096 && read_inbox(&st, zsock_resolve(inbox)); i++)
                ;
            send_replies(&st);
        } else if (zpoller_terminated(poller)) {
            break;
        }
        int64_t now = ts_clock_mono_us();
        if (now >= next_sweep) {
            sweep(&st, now);
            send_replies(&st);   /* the SYNC_RESULTs of a load given up on */
            send_steps(&st);     /* silent players' last steps, with no row to go with */
            next_sweep = now + TICK_US * 5;
        }
        if (st.ndirty >= ROWS_CHUNK || (st.ndirty && now - st.dirty_since >= st.opt.hold_us))
            send_dirty(&st);   /* a chunk's worth, or the oldest has waited its hold */
    }
    if (st.players) {   /* last words: every player's row, so SIGTERM loses nothing */
        for (entry_t *e = zhashx_first(st.players); e; e = zhashx_next(st.players)) {
            if (!e->loading)
                mark_dirty(&st, e);
            scene_history_row_t done;   /* the step so far: a later part of it adds up in the store */
            if (scene_history_flush(&e->history, scene_player_id(e->player), INT64_MAX, &done))
                keep_step(&st, &done);
        }
        send_dirty(&st);
    }
    zpoller_destroy(&poller);
    zhashx_destroy(&st.players);
    zmq_msg_close(&st.body);
    free(st.out);
    free(st.dirty);
    zsock_destroy(&inbox);
    zsock_destroy(&replies);
    zsock_destroy(&store);
}

scene_worker_t *scene_worker_new(const scene_worker_options_t *options)
{
    scene_worker_t *self = calloc(1, sizeof *self);
    if (!self)
        return NULL;
    self->opt = *options;
    self->actor = zactor_new(worker_actor, &self->opt);
    if (!self->actor) {
        free(self);
        return NULL;
    }
    return self;
}

void scene_worker_destroy(scene_worker_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    zactor_destroy(&(*self_p)->actor);
    free(*self_p);
    *self_p = NULL;
}
