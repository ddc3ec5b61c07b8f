/* tests/test_shards.c - the gate's shard links against a real ZeroMQ
 * ROUTER standing in for a scene: routing by the jump hash, liveness by
 * PING/PONG (up while answered, down after GATE_SHARD_DEAD_US of silence),
 * and envelopes both ways. */
#include <criterion/criterion.h>
#include <czmq.h>
#include <stdio.h>
#include <unistd.h>

#include "clock.h"
#include "err.h"
#include "shard.h"
#include "shards.h"

static zsock_t *scene;
static ts_decoder_t *dec;
static char endpoint[64];
static uint64_t pong_flags;   /* what the scene's PONGs say (TS_ENV_DEGRADED) */

static void setup(void)
{
    pong_flags = 0;
    scene = zsock_new(ZMQ_ROUTER);
    dec = ts_decoder_new();
    int port = zsock_bind(scene, "tcp://127.0.0.1:*");
    cr_assert_gt(port, 0);
    snprintf(endpoint, sizeof endpoint, "tcp://127.0.0.1:%d", port);
}

static void teardown(void)
{
    zsock_destroy(&scene);
    ts_decoder_destroy(&dec);
}

/* The scene's side: answers every PING with a PONG for a while; hands back
 * the last non-PING envelope it saw (a message is a batch of them). */
static bool serve(int ms, ts_env_t *seen)
{
    bool got = false;
    int64_t end = ts_clock_mono_us() + ms * 1000;
    zsock_set_rcvtimeo(scene, 10);
    while (ts_clock_mono_us() < end) {
        zmsg_t *m = zmsg_recv(scene);
        if (!m)
            continue;
        zframe_t *id = zmsg_pop(m), *body = zmsg_pop(m);
        ts_env_t env;
        size_t off = 0;
        while (body && ts_env_next(dec, zframe_data(body), zframe_size(body), &off, &env) == 1) {
            if (env.kind == TS_ENV_PING) {
                ts_env_t pong = { .kind = TS_ENV_PONG, .seq = env.seq, .flags = pong_flags };
                uint8_t buf[TS_ENV_MAX];
                size_t n = ts_env_encode(&pong, buf, sizeof buf);
                zsock_send(scene, "fb", id, buf, n);
            } else {
                *seen = env;
                got = true;
            }
        }
        zframe_destroy(&id);
        zframe_destroy(&body);
        zmsg_destroy(&m);
    }
    return got;
}

Test(shards, routes_by_the_jump_hash)
{
    char err[TS_ERR_MAX];
    gate_shards_t *s = gate_shards_new("tcp://127.0.0.1:1,tcp://127.0.0.1:2,tcp://127.0.0.1:3", NULL, NULL, 0, err);
    cr_assert_not_null(s, "%s", err);
    cr_assert_eq(gate_shards_count(s), 3);
    for (uint64_t p = 1; p < 1000; p++)
        cr_assert_eq(gate_shards_route(s, p), (int) ts_shard_of(p, 3));
    gate_shards_destroy(&s);
    cr_assert_null(s);
    cr_assert_null(gate_shards_new("", NULL, NULL, 0, err));
}

/* PINGs and the scene's PONGs until the shard is up (at most 2 s). */
static bool bring_up(gate_shards_t *s)
{
    ts_env_t env, seen;
    bool up = false;
    for (int i = 0; i < 40 && !up; i++) {
        gate_shards_tick(s, ts_clock_mono_us());
        gate_shards_flush(s, INT64_MAX);
        serve(50, &seen);
        while (gate_shards_recv(s, 0, &env, ts_clock_mono_us()) != 0)
            ;
        up = gate_shards_up(s, 0, ts_clock_mono_us());
    }
    return up;
}

Test(shards, up_while_pongs_come_down_when_they_stop, .init = setup, .fini = teardown)
{
    char err[TS_ERR_MAX];
    int64_t now = ts_clock_mono_us();
    gate_shards_t *s = gate_shards_new(endpoint, NULL, NULL, now, err);
    cr_assert_not_null(s, "%s", err);
    ts_env_t seen;
    cr_assert(bring_up(s), "a shard that answers PINGs is up");
    cr_assert_eq(gate_shards_up_count(s, ts_clock_mono_us()), 1);

    ts_env_t sync = { .kind = TS_ENV_SYNC, .conn = 7, .player_id = 42, .seq = 3, .t1 = 11, .t2 = 22 };
    cr_assert_eq(gate_shards_send(s, 0, &sync), 0);
    cr_assert_lt(gate_shards_due(s), INT64_MAX, "a batch waits");
    cr_assert_eq(gate_shards_flush(s, INT64_MAX), 0);
    cr_assert_eq(gate_shards_due(s), INT64_MAX);
    cr_assert(serve(200, &seen), "the envelope reaches the scene");
    cr_assert_eq(seen.kind, TS_ENV_SYNC);
    cr_assert_eq(seen.player_id, 42);
    cr_assert_eq(seen.t2, 22);

    /* silence: no more PONGs */
    int64_t later = ts_clock_mono_us() + GATE_SHARD_DEAD_US + 1000;
    cr_assert_not(gate_shards_up(s, 0, later), "down after %d us without a PONG", GATE_SHARD_DEAD_US);
    gate_shards_destroy(&s);
}

Test(shards, degraded_while_its_pongs_say_so_and_up, .init = setup, .fini = teardown)
{
    char err[TS_ERR_MAX];
    gate_shards_t *s = gate_shards_new(endpoint, NULL, NULL, ts_clock_mono_us(), err);
    cr_assert_not_null(s, "%s", err);
    uint64_t mask = 42;
    cr_assert(bring_up(s));
    cr_assert_eq(gate_shards_degraded_count(s, ts_clock_mono_us(), &mask), 0);
    cr_assert_eq(mask, 0);
    pong_flags = TS_ENV_DEGRADED;   /* the scene's store fails */
    int64_t end = ts_clock_mono_us() + 2000000;
    while (gate_shards_degraded_count(s, ts_clock_mono_us(), &mask) == 0 && ts_clock_mono_us() < end)
        bring_up(s);
    cr_assert_eq(gate_shards_degraded_count(s, ts_clock_mono_us(), &mask), 1, "the next PONG says so");
    cr_assert_eq(mask, 1, "shard 0");
    int64_t later = ts_clock_mono_us() + GATE_SHARD_DEAD_US + 1000;
    cr_assert_eq(gate_shards_degraded_count(s, later, &mask), 0, "a shard that is down is down, not degraded");
    pong_flags = 0;   /* it writes again */
    end = ts_clock_mono_us() + 2000000;
    while (gate_shards_degraded_count(s, ts_clock_mono_us(), &mask) != 0 && ts_clock_mono_us() < end)
        bring_up(s);
    cr_assert_eq(gate_shards_degraded_count(s, ts_clock_mono_us(), &mask), 0, "recovered with the next PONG");
    gate_shards_destroy(&s);
}

static void count_unsent(void *arg, const ts_env_t *env)
{
    uint64_t *seqs = arg;
    seqs[seqs[0]++ + 1] = env->seq;
}

/* A shard on a port nobody listens on, whose unsent envelopes' seqs go to
 * seqs (seqs[0] counts them). */
static gate_shards_t *unreachable(uint64_t *seqs)
{
    char err[TS_ERR_MAX];
    gate_shards_t *s = gate_shards_new("tcp://127.0.0.1:1", NULL, NULL, ts_clock_mono_us(), err);
    cr_assert_not_null(s, "%s", err);
    gate_shards_on_unsent(s, count_unsent, seqs);
    return s;
}

Test(shards, a_batch_lingers_for_company_until_it_is_due)
{
    uint64_t seqs[8] = { 0 };
    gate_shards_t *s = unreachable(seqs);
    gate_shards_set_linger(s, 500);
    int64_t before = ts_clock_mono_us();
    gate_shards_send(s, 0, &(ts_env_t) { .kind = TS_ENV_PING, .seq = 1 });
    int64_t due = gate_shards_due(s);
    cr_assert_geq(due, before + 500, "due 500 us after its first envelope");
    cr_assert_leq(due, ts_clock_mono_us() + 500);
    gate_shards_send(s, 0, &(ts_env_t) { .kind = TS_ENV_PING, .seq = 2 });
    cr_assert_eq(gate_shards_due(s), due, "company does not push it back");
    cr_assert_eq(gate_shards_flush(s, due - 1), 0);
    cr_assert_eq(seqs[0], 0, "not yet: nothing tried");
    cr_assert_eq(gate_shards_flush(s, due), 2, "due: it goes (and is refused, nothing listens)");
    cr_assert_eq(gate_shards_due(s), INT64_MAX);
    gate_shards_destroy(&s);
}

static void requeue(void *arg, const ts_env_t *env)
{
    gate_shards_send(arg, 0, env);
}

/* What the gate does with a refused OPEN: it queues it again. The batch is
 * then tried again GATE_SHARD_RETRY_US later, not on the next turn. */
Test(shards, a_batch_queued_again_waits_before_it_is_retried)
{
    char err[TS_ERR_MAX];
    gate_shards_t *s = gate_shards_new("tcp://127.0.0.1:1", NULL, NULL, ts_clock_mono_us(), err);
    cr_assert_not_null(s, "%s", err);
    gate_shards_on_unsent(s, requeue, s);
    gate_shards_send(s, 0, &(ts_env_t) { .kind = TS_ENV_OPEN, .conn = 1, .player_id = 9 });
    gate_shards_send(s, 0, &(ts_env_t) { .kind = TS_ENV_CLOSE, .conn = 1, .player_id = 9 });
    int64_t before = ts_clock_mono_us();
    cr_assert_eq(gate_shards_flush(s, INT64_MAX), 2, "refused: nothing listens there");
    int64_t due = gate_shards_due(s);
    cr_assert_geq(due, before + GATE_SHARD_RETRY_US, "queued again, due no sooner than the retry delay");
    cr_assert_leq(due, ts_clock_mono_us() + GATE_SHARD_RETRY_US);
    cr_assert_eq(gate_shards_flush(s, due - 1), 0, "not tried before it is due");
    cr_assert_eq(gate_shards_flush(s, due), 2, "then tried again, both");
    gate_shards_destroy(&s);
}

Test(shards, a_batch_no_shard_takes_is_handed_back_envelope_by_envelope)
{
    uint64_t seqs[8] = { 0 };
    gate_shards_t *s = unreachable(seqs);
    for (uint64_t q = 1; q <= 3; q++)
        cr_assert_eq(gate_shards_send(s, 0, &(ts_env_t) { .kind = TS_ENV_SYNC, .conn = 1, .player_id = 9, .seq = q }), 0);
    cr_assert_eq(gate_shards_flush(s, INT64_MAX), 3, "nothing listens there: with ZMQ_IMMEDIATE the batch is refused");
    cr_assert_eq(seqs[0], 3);
    cr_assert_eq(seqs[1], 1);
    cr_assert_eq(seqs[3], 3);
    cr_assert_eq(gate_shards_due(s), INT64_MAX);
    gate_shards_destroy(&s);
}

Test(shards, a_batch_from_the_scene_is_read_envelope_by_envelope, .init = setup, .fini = teardown)
{
    char err[TS_ERR_MAX];
    gate_shards_t *s = gate_shards_new(endpoint, NULL, NULL, ts_clock_mono_us(), err);
    cr_assert_not_null(s, "%s", err);
    ts_env_t ping = { .kind = TS_ENV_PING, .seq = 1 };
    gate_shards_send(s, 0, &ping);   /* so the scene learns the gate's identity */
    zmsg_t *m = NULL;
    for (int i = 0; i < 100 && !m; i++) {
        gate_shards_flush(s, INT64_MAX);
        zsock_set_rcvtimeo(scene, 20);
        m = zmsg_recv(scene);
        if (!m)
            gate_shards_send(s, 0, &ping);
    }
    cr_assert_not_null(m);
    zframe_t *id = zmsg_pop(m);
    uint8_t batch[512];
    size_t len = 0;
    for (uint64_t q = 1; q <= 5; q++)
        cr_assert(ts_env_append(batch, sizeof batch, &len,
                                &(ts_env_t) { .kind = TS_ENV_SYNC_RESULT, .conn = 1, .player_id = 9, .seq = q,
                                              .reply = (const uint8_t[]) { 0xc0 }, .reply_len = 1 }));
    batch[len++] = 0xc1;   /* then junk */
    zsock_send(scene, "fb", id, batch, len);
    ts_env_t env;
    uint64_t next = 1;
    int rc = 0;
    for (int i = 0; i < 200 && next <= 5; i++) {
        while ((rc = gate_shards_recv(s, 0, &env, ts_clock_mono_us())) == 1)
            cr_assert_eq(env.seq, next++);
        if (next <= 5)
            usleep(5000);
    }
    cr_assert_eq(next, 6, "all five, in order");
    cr_assert_eq(rc, -1, "then the junk, reported once");
    cr_assert_eq(gate_shards_recv(s, 0, &env, ts_clock_mono_us()), 0);
    zframe_destroy(&id);
    zmsg_destroy(&m);
    gate_shards_destroy(&s);
}
