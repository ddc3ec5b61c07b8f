/* bench/storeload.c - load on one scene shard straight over ZeroMQ, as a
 * gate with many players would give it, for benchmarks about the scene's
 * store (bench/history.sh): no TCP client and no descriptor per player, so
 * 100k players fit in one process on any open-files limit.
 *
 *   ticksync-storeload --scene tcp://127.0.0.1:7701 --players 100000 --rate 300000 --duration-s 30
 *
 * It opens every player (OPEN envelopes), then runs exchanges round-robin
 * over them at RATE per second, each round in the same scattered order (a
 * stride coprime to PLAYERS), as players whose clients started at random
 * times would come; --order id takes them in id order, which crowds each
 * flush's rows into a few of the table's pages: a SYNC and its SYNC_ACK (1 ms on the wire,
 * after 1 ms of the client's turnaround) in the batches a gate sends, reads
 * the SYNC_RESULTs back. The summary gives exchanges sent and answered per
 * second over the measured time. */
#include <czmq.h>
#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "config.h"
#include "envelope.h"

static const ts_setting_t settings[] = {
    { "scene", TS_SET_STR, "tcp://127.0.0.1:7701", "the shard's ZeroMQ endpoint", 0, 0 },
    { "players", TS_SET_INT, "100000", "players, opened first, then exchanged with in turn", 1, 10000000 },
    { "rate", TS_SET_INT, "300000", "exchanges per second in all", 1, 100000000 },
    { "duration-s", TS_SET_INT, "30", "seconds of exchanges", 1, 100000 },
    { "order", TS_SET_STR, "scattered", "the players' order in a round: scattered or id", 0, 0 },
};

/* A stride through 0..players-1 that visits each once a round: a prime
 * above any player count the settings allow is coprime to all of them. */
enum { SCATTER_STRIDE = 10000019 };

typedef struct {
    void        *sock;
    ts_decoder_t *dec;
    uint8_t      batch[TS_ENV_BATCH_MAX];
    size_t       len;
    uint64_t     results;
} load_t;

static void flush(load_t *l)
{
    if (l->len && zmq_send(l->sock, l->batch, l->len, 0) < 0)
        fprintf(stderr, "send: %s\n", zmq_strerror(zmq_errno()));
    l->len = 0;
}

static void put(load_t *l, const ts_env_t *env)
{
    if (!ts_env_append(l->batch, sizeof l->batch, &l->len, env)) {
        flush(l);
        ts_env_append(l->batch, sizeof l->batch, &l->len, env);
    }
}

/* Reads every reply waiting, counting SYNC_RESULTs. */
static void drain(load_t *l)
{
    zmq_msg_t m;
    zmq_msg_init(&m);
    while (zmq_msg_recv(&m, l->sock, ZMQ_DONTWAIT) >= 0) {
        size_t off = 0;
        ts_env_t env;
        while (ts_env_next(l->dec, zmq_msg_data(&m), zmq_msg_size(&m), &off, &env) == 1)
            l->results += env.kind == TS_ENV_SYNC_RESULT;
    }
    zmq_msg_close(&m);
}

int main(int argc, char **argv)
{
    ts_config_t *cfg = ts_config_new("ticksync-storeload", "[options]", "Load on one scene shard over ZeroMQ.",
                                     settings, sizeof settings / sizeof settings[0]);
    ts_config_rc_t rc = ts_config_load(cfg, argc, argv);
    if (rc != TS_CONFIG_OK) {
        ts_config_destroy(&cfg);
        return rc == TS_CONFIG_EXIT ? 0 : 2;
    }
    uint64_t players = (uint64_t) ts_config_int(cfg, "players");
    int64_t rate = ts_config_int(cfg, "rate"), duration_us = ts_config_int(cfg, "duration-s") * 1000000;
    const char *order = ts_config_str(cfg, "order");
    if (strcmp(order, "scattered") != 0 && strcmp(order, "id") != 0) {
        fprintf(stderr, "ticksync-storeload: --order wants scattered or id, not '%s'\n", order);
        ts_config_destroy(&cfg);
        return 2;
    }
    uint64_t stride = strcmp(order, "id") == 0 ? 1 : SCATTER_STRIDE % players;
    zsock_t *dealer = zsock_new(ZMQ_DEALER);
    static load_t l;
    l.sock = zsock_resolve(dealer);
    l.dec = ts_decoder_new();
    zsock_set_sndhwm(dealer, 0);
    zsock_set_rcvhwm(dealer, 0);
    if (!l.dec || zsock_connect(dealer, "%s", ts_config_str(cfg, "scene")) < 0) {
        fprintf(stderr, "cannot connect to %s\n", ts_config_str(cfg, "scene"));
        return 1;
    }
    for (uint64_t p = 1; p <= players; p++)
        put(&l, &(ts_env_t) { .kind = TS_ENV_OPEN, .conn = p, .player_id = p });
    flush(&l);
    zclock_sleep(2000);   /* the shard loads (creates) every player */
    drain(&l);

    uint64_t sent = 0, next = 0, seq = 0;
    int64_t start = ts_clock_mono_us(), now = start;
    while ((now = ts_clock_mono_us()) - start < duration_us) {
        uint64_t due = (uint64_t) ((now - start) * rate / 1000000);
        for (; sent < due && l.len + 2 * TS_ENV_MAX < sizeof l.batch; sent++) {
            uint64_t turn = next++ % players;
            uint64_t p = turn * stride % players + 1;
            seq += turn == 0;
            int64_t t1 = ts_clock_real_us();
            put(&l, &(ts_env_t) { .kind = TS_ENV_SYNC, .conn = p, .player_id = p, .seq = seq, .t1 = t1, .t2 = t1 });
            put(&l, &(ts_env_t) { .kind = TS_ENV_SYNC_ACK, .conn = p, .player_id = p, .seq = seq,
                                  .t4 = t1 + 1000, .t5 = t1 + 2000, .t6_t3 = 2000 });
        }
        flush(&l);
        drain(&l);
        if (sent >= due)
            zclock_sleep(1);
    }
    int64_t took = ts_clock_mono_us() - start;
    zclock_sleep(500);   /* the last results */
    drain(&l);
    printf("storeload: %llu players, %llu exchanges in %.1f s: %.0f exchanges/s sent, %.0f results/s\n",
           (unsigned long long) players, (unsigned long long) sent, took / 1e6, sent * 1e6 / took,
           l.results * 1e6 / took);
    zsock_destroy(&dealer);
    ts_decoder_destroy(&l.dec);
    ts_config_destroy(&cfg);
    return 0;
}
