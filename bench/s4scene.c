/* bench/s4scene.c - seed S4's way of measuring a player's delay
 * ("An MMORPG server from scratch, part 5", cited in docs/DESIGN.md), as a
 * scene shard behind the real gate, so
 * bench/serverside.sh can hold it against ticksync's scene under the same
 * load and the same bot.
 *
 * What the seed's PlayerCharacter process does, per player: the scene
 * stamps the first TimeSync when it arrives (:os.system_time(:millisecond))
 * and answers it; when the second arrives it takes
 *     temp_delay = div(now - old, 2)                          (ms)
 *     net_delay  = old_delay != 0 ? div(temp + old_delay, 2) : temp
 * So the scene's own clock and its arrival times are used: the gate <->
 * scene hops, their queueing and the client's turnaround all land in the
 * delay, and everything is whole milliseconds. Here the first TimeSync is
 * the envelope of a SYNC (the gate has answered it) and the second that of
 * its SYNC_ACK; the SYNC_RESULT carries rtt = 2 * temp_delay and srtt = 2 * net_delay (µs),
 * which is what the bot compares with the injected truth.
 *
 *   ticksync-s4scene ENDPOINT      (binds a ROUTER there; until SIGINT/SIGTERM)
 */
#include <czmq.h>

#include "clock.h"
#include "envelope.h"
#include "msg.h"
#include "idkey.h"

typedef struct {
    bool    have_old;
    int64_t old_ms, delay_ms;
} s4_player_t;

/* Encodes env and sends it as [gate identity][envelope], a batch of one,
 * without blocking. */
static void send_envelope(void *router, const uint8_t *id, size_t idn, const ts_env_t *env)
{
    uint8_t buf[TS_ENV_MAX];
    size_t n = ts_env_encode(env, buf, sizeof buf);
    if (n > 0 && zmq_send(router, id, idn, ZMQ_SNDMORE | ZMQ_DONTWAIT) >= 0)
        zmq_send(router, buf, n, ZMQ_DONTWAIT);
}

static int64_t now_ms(void) { return ts_clock_real_us() / 1000; }

static s4_player_t *player_of(zhashx_t *players, uint64_t id)
{
    s4_player_t *p = zhashx_lookup(players, (void *) (uintptr_t) id);
    if (!p && (p = calloc(1, sizeof *p)))
        zhashx_insert(players, (void *) (uintptr_t) id, p);
    return p;
}

static void on_envelope(zhashx_t *players, void *router, const uint8_t *id, size_t idn, const ts_env_t *env)
{
    if (env->kind == TS_ENV_PING) {
        ts_env_t pong = { .kind = TS_ENV_PONG, .seq = env->seq };
        send_envelope(router, id, idn, &pong);
        return;
    }
    if (env->kind != TS_ENV_SYNC && env->kind != TS_ENV_SYNC_ACK)
        return;
    int64_t now = now_ms();
    s4_player_t *p = player_of(players, env->player_id);
    if (!p)
        return;
    if (env->kind == TS_ENV_SYNC) {
        p->old_ms = now;
        p->have_old = true;
        return;
    }
    if (!p->have_old)
        return;
    int64_t temp = (now - p->old_ms) / 2;
    p->delay_ms = p->delay_ms != 0 ? (temp + p->delay_ms) / 2 : temp;
    p->have_old = false;
    ts_msg_t m = { .type = TS_SYNC_RESULT, .seq = env->seq,
                   .u.sync_result = { .rtt = 2 * temp * 1000, .srtt = 2 * p->delay_ms * 1000 } };
    uint8_t body[TS_ENV_REPLY_MAX];
    ts_env_t r = { .kind = TS_ENV_SYNC_RESULT, .conn = env->conn, .player_id = env->player_id, .seq = env->seq,
                   .reply = body, .reply_len = ts_msg_encode(&m, body, sizeof body) };
    send_envelope(router, id, idn, &r);
}

static void free_player(void **item)
{
    free(*item);
    *item = NULL;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: ticksync-s4scene ENDPOINT\n");
        return 2;
    }
    zsock_t *sock = zsock_new(ZMQ_ROUTER);
    zhashx_t *players = zhashx_new();
    if (!sock || !players || zsock_bind(sock, "%s", argv[1]) < 0) {
        fprintf(stderr, "ticksync-s4scene: cannot bind %s\n", argv[1]);
        return 1;
    }
    zhashx_set_key_hasher(players, ts_idkey_hash);
    zhashx_set_key_comparator(players, ts_idkey_cmp);
    zhashx_set_key_duplicator(players, NULL);
    zhashx_set_key_destructor(players, NULL);
    zhashx_set_destructor(players, free_player);
    void *router = zsock_resolve(sock);
    zmq_pollitem_t item = { router, 0, ZMQ_POLLIN, 0 };
    uint8_t *buf = malloc(TS_ENV_BATCH_MAX);
    ts_decoder_t *dec = ts_decoder_new();
    while (buf && dec && !zsys_interrupted) {
        if (zmq_poll(&item, 1, 200) <= 0)
            continue;
        uint8_t id[256];
        int idn;
        while ((idn = zmq_recv(router, id, sizeof id, ZMQ_DONTWAIT)) >= 0) {
            int n = zmq_recv(router, buf, TS_ENV_BATCH_MAX, 0);   /* a batch of envelopes */
            ts_env_t env;
            size_t off = 0;
            while (idn <= (int) sizeof id && n >= 0 && n <= TS_ENV_BATCH_MAX
                   && ts_env_next(dec, buf, (size_t) n, &off, &env) == 1)
                on_envelope(players, router, id, (size_t) idn, &env);
        }
    }
    ts_decoder_destroy(&dec);
    free(buf);
    zhashx_destroy(&players);
    zsock_destroy(&sock);
    return 0;
}
