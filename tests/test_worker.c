/* tests/test_worker.c - one player worker thread, driven through its real
 * inproc sockets: the test plays the routing thread (envelopes into the
 * worker's inbox), the writer (answers row queries, receives rows) and
 * reads the replies the worker sends for the gates. */
#include <criterion/criterion.h>
#include <czmq.h>

#include "envelope.h"
#include "msg.h"
#include "stats.h"
#include "wire.h"
#include "worker.h"

typedef struct {
    ts_metrics_t   *reg;
    scene_stats_t   stats;
    ts_log_t       *log;
    zsock_t        *store, *replies, *inbox;   /* the writer's and the router's ends; the worker's inbox */
    scene_worker_t *worker;
    ts_decoder_t   *dec;
} rig_t;

static rig_t rig;

static void start(void)
{
    rig.reg = ts_metrics_new(TS_METRICS_ANY_WRITER);
    cr_assert_eq(scene_stats_init(&rig.stats, rig.reg), 0);
    rig.log = ts_log_new("test", TS_LOG_ERROR);
    rig.store = zsock_new_pull("@" SCENE_EP_STORE);
    rig.replies = zsock_new_pull("@" SCENE_EP_REPLIES);
    char ep[64];
    rig.inbox = zsock_new_push(scene_worker_endpoint(ep, '>', 0));
    cr_assert(rig.store && rig.replies && rig.inbox);
    scene_worker_options_t o = { .index = 0, .count = 1, .idle_us = 60000000, .lag = { 50000, 5 },
                                 .log = rig.log, .stats = &rig.stats };
    rig.worker = scene_worker_new(&o);
    cr_assert_not_null(rig.worker);
    rig.dec = ts_decoder_new();
}

static void stop(void)
{
    scene_worker_destroy(&rig.worker);
    zsock_destroy(&rig.inbox);
    zsock_destroy(&rig.replies);
    zsock_destroy(&rig.store);
    ts_decoder_destroy(&rig.dec);
    ts_log_destroy(&rig.log);
    ts_metrics_destroy(&rig.reg);
}

TestSuite(worker, .init = start, .fini = stop, .timeout = 30);

/* 'E' | gate identity | ts_env_t[n], as the routing thread sends it. */
static void pass(const char *gate, const ts_env_t *envs, size_t n)
{
    zmsg_t *m = zmsg_new();
    zmsg_addmem(m, "E", 1);
    zmsg_addstr(m, gate);
    zmsg_addmem(m, envs, n * sizeof *envs);
    cr_assert_eq(zmsg_send(&m, rig.inbox), 0);
}

/* The next query the worker sends the writer within ms (rows on the way
 * are counted into *rows); false when none came. */
static bool next_query(int ms, scene_query_t *q, scene_row_t *last_row)
{
    zpoller_t *p = zpoller_new(rig.store, NULL);
    int64_t until = zclock_mono() + ms;
    bool got = false;
    while (!got && zclock_mono() < until && zpoller_wait(p, (int) (until - zclock_mono())) == rig.store) {
        zmsg_t *m = zmsg_recv(rig.store);
        zframe_t *kind = zmsg_first(m), *body = zmsg_next(m);
        if (zframe_data(kind)[0] == 'Q') {
            cr_assert_eq(zframe_size(body), sizeof *q);
            memcpy(q, zframe_data(body), sizeof *q);
            got = true;
        } else if (zframe_data(kind)[0] == 'R' && last_row && zframe_size(body) >= sizeof *last_row) {
            memcpy(last_row, zframe_data(body) + zframe_size(body) - sizeof *last_row, sizeof *last_row);
        }
        zmsg_destroy(&m);
    }
    zpoller_destroy(&p);
    return got;
}

/* The next reply envelope for a gate within ms; false when none came. */
/* The last SYNC_RESULT's reply, decoded as the client reads it (the
 * envelope's own pointer dies with its frame). */
static ts_sync_result_t result;

static bool next_reply(int ms, char gate[32], ts_env_t *env)
{
    zsock_set_rcvtimeo(rig.replies, ms);
    zmsg_t *m = zmsg_recv(rig.replies);
    if (!m)
        return false;
    char *g = zmsg_popstr(m);
    zframe_t *batch = zmsg_pop(m);
    snprintf(gate, 32, "%s", g);
    size_t off = 0;
    cr_assert_eq(ts_env_next(rig.dec, zframe_data(batch), zframe_size(batch), &off, env), 1);
    if (env->kind == TS_ENV_SYNC_RESULT) {
        ts_msg_t client;
        cr_assert_eq(ts_msg_decode(env->reply, env->reply_len, TS_FROM_SERVER, &client), TS_OK, "a client's message");
        cr_assert_eq(client.type, TS_SYNC_RESULT);
        cr_assert_eq(client.seq, env->seq, "for the exchange the envelope names");
        result = client.u.sync_result;
        env->reply = NULL;
    }
    free(g);
    zframe_destroy(&batch);
    zmsg_destroy(&m);
    return true;
}

/* The writer's answer to the worker's query for a player's stored row. */
static void give_row(const scene_load_t *load)
{
    zmsg_t *m = zmsg_new();
    zmsg_addmem(m, "L", 1);
    zmsg_addmem(m, load, sizeof *load);
    cr_assert_eq(zmsg_send(&m, rig.inbox), 0);
}

static void one_exchange(uint64_t player, uint64_t seq)
{
    ts_env_t envs[] = {
        { .kind = TS_ENV_OPEN, .conn = 11, .player_id = player },
        { .kind = TS_ENV_SYNC, .conn = 11, .player_id = player, .seq = seq, .t1 = 1000, .t2 = 5000 },
        /* the server's round trip: t6 - t3 = 30 ms, less the client's 10 ms turnaround */
        { .kind = TS_ENV_SYNC_ACK, .conn = 11, .player_id = player, .seq = seq, .t4 = 100000, .t5 = 110000,
          .t6_t3 = 30000 },
    };
    pass("gate-A", envs, 3);
}

Test(worker, answers_acks_once_the_stored_row_is_in_and_smooths_from_it)
{
    one_exchange(7, 1);
    scene_query_t q;
    cr_assert(next_query(2000, &q, NULL), "the worker asks for the player's stored row");
    cr_assert_eq(q.player_id, 7);
    cr_assert_eq(q.worker, 0);
    char gate[32];
    ts_env_t r;
    cr_assert_not(next_reply(300, gate, &r), "no SYNC_RESULT before the row is in");

    scene_load_t load = { .player_id = 7, .found = 1,
                          .row = { .player_id = 7, .rtt_us = 50000, .srtt_us = 50000, .rttvar_us = 10000,
                                   .min_rtt_us = 40000, .samples = 5 } };
    give_row(&load);

    cr_assert(next_reply(2000, gate, &r), "the deferred SYNC_ACK is answered");
    cr_assert_str_eq(gate, "gate-A", "to the gate that holds the session");
    cr_assert_eq(r.kind, TS_ENV_SYNC_RESULT);
    cr_assert_eq(r.conn, 11);
    cr_assert_eq(r.seq, 1);
    cr_assert_eq(result.rtt, 20000);
    /* RFC 6298 from the stored values: rttvar = 3/4 10000 + 1/4 |50000 - 20000|, srtt = 7/8 50000 + 1/8 20000 */
    cr_assert_eq(result.rttvar, 15000);
    cr_assert_eq(result.srtt, 46250);

    scene_row_t row = { 0 };
    next_query(500, &q, &row);   /* the dirty row goes to the writer */
    cr_assert_eq(row.player_id, 7);
    cr_assert_eq(row.samples, 6);
    cr_assert_eq(row.srtt_us, 46250);
    cr_assert_eq(row.online, 1);
    cr_assert_eq(ts_metric_value(rig.stats.exchanges), 1);
    cr_assert_eq(ts_metric_value(rig.stats.loads_abandoned), 0);
}

Test(worker, a_row_that_never_comes_is_asked_again_then_given_up)
{
    one_exchange(9, 4);
    scene_query_t q;
    int asks = 0;
    while (next_query(SCENE_LOAD_RETRY_US / 1000 + 1000, &q, NULL)) {
        cr_assert_eq(q.player_id, 9);
        asks++;
    }
    cr_assert_eq(asks, SCENE_LOAD_ASKS, "asked %d times", asks);
    char gate[32];
    ts_env_t r;
    cr_assert(next_reply(2000, gate, &r), "the player starts afresh and its SYNC_ACK is answered");
    cr_assert_eq(r.kind, TS_ENV_SYNC_RESULT);
    cr_assert_eq(r.seq, 4);
    cr_assert_eq(result.rtt, 20000);
    cr_assert_eq(result.srtt, 20000, "a fresh player: the first sample sets srtt");
    cr_assert_eq(result.rttvar, 10000);
    cr_assert_eq(ts_metric_value(rig.stats.load_retries), SCENE_LOAD_ASKS - 1);
    cr_assert_eq(ts_metric_value(rig.stats.loads_abandoned), 1);

    /* a row that comes after all is ignored: smoothing goes on from the fresh start */
    scene_load_t late = { .player_id = 9, .found = 1, .row = { .player_id = 9, .srtt_us = 90000, .samples = 50 } };
    give_row(&late);
    ts_env_t envs[] = {
        { .kind = TS_ENV_SYNC, .conn = 11, .player_id = 9, .seq = 5, .t1 = 2000, .t2 = 6000 },
        { .kind = TS_ENV_SYNC_ACK, .conn = 11, .player_id = 9, .seq = 5, .t4 = 200000, .t5 = 210000, .t6_t3 = 30000 },
    };
    pass("gate-A", envs, 2);
    cr_assert(next_reply(2000, gate, &r));
    cr_assert_eq(r.seq, 5);
    cr_assert_eq(result.srtt, 20000);
}

/* A player with no stored row, its first exchange answered: the worker
 * asks the writer, hears there is none, and starts it afresh. */
static void start_afresh(uint64_t player)
{
    one_exchange(player, 1);
    scene_query_t q;
    cr_assert(next_query(2000, &q, NULL));
    give_row(&(scene_load_t) { .player_id = player, .found = 0 });
    char gate[32];
    ts_env_t r;
    cr_assert(next_reply(2000, gate, &r));
}

Test(worker, an_ack_for_no_pending_exchange_gets_no_result)
{
    start_afresh(12);
    cr_assert_eq(result.srtt, 20000, "no stored row: a fresh start");
    char gate[32];
    ts_env_t r;
    ts_env_t stray = { .kind = TS_ENV_SYNC_ACK, .conn = 11, .player_id = 12, .seq = 99, .t4 = 1, .t5 = 2, .t6_t3 = 3 };
    pass("gate-A", &stray, 1);
    cr_assert_not(next_reply(300, gate, &r), "PROTOCOL: an ACK matching no exchange is ignored");
    cr_assert_eq(ts_metric_value(rig.stats.unmatched_acks), 1);
}

/* One exchange of player 14 on its open session, the client's round trip
 * as given (the server's is 20 ms), answered. */
static void exchange_with_client_rtt(uint64_t seq, int64_t client_rtt)
{
    ts_env_t envs[] = {
        { .kind = TS_ENV_SYNC, .conn = 11, .player_id = 14, .seq = seq, .t1 = 1000, .t2 = 5000 },
        { .kind = TS_ENV_SYNC_ACK, .conn = 11, .player_id = 14, .seq = seq, .t4 = 100000, .t5 = 110000,
          .t6_t3 = 30000, .has_client_rtt = true, .client_rtt = client_rtt },
    };
    pass("gate-A", envs, 2);
    char gate[32];
    ts_env_t r;
    cr_assert(next_reply(2000, gate, &r), "seq %llu answered", (unsigned long long) seq);
}

Test(worker, the_lag_flag_is_raised_after_its_strikes_and_counted_once)
{
    start_afresh(14);
    /* the rig's rule: 5 strikes of |client rtt - server rtt| over 50 ms */
    for (uint64_t seq = 2; seq <= 5; seq++)
        exchange_with_client_rtt(seq, 200000);
    cr_assert_eq(ts_metric_value(rig.stats.lag_flags), 0, "four strikes raise nothing");
    exchange_with_client_rtt(6, 200000);
    cr_assert_eq(ts_metric_value(rig.stats.lag_flags), 1, "the fifth raises the flag");
    cr_assert_eq(ts_metric_value(rig.stats.flagged_lag), 1, "one player flagged");
    exchange_with_client_rtt(7, 200000);
    cr_assert_eq(ts_metric_value(rig.stats.lag_flags), 1, "raised once, however long it stays");
    exchange_with_client_rtt(8, 20000);
    cr_assert_eq(ts_metric_value(rig.stats.flagged_lag), 0, "a round trip that agrees clears it");
    cr_assert_eq(ts_metric_value(rig.stats.lag_flags), 1);
}
