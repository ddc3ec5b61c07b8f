/* tests/test_e2e_cluster.c - scale-out with the real processes: two gates
 * over two scene shards. Players spread over the shards by the gate's hash,
 * either gate serves any player and a player moving between gates keeps
 * its history (and its old session is replaced), and ticksync-admin finds
 * every player on the right shard. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e2e.h"
#include "shard.h"

static e2e_stack_t stack;

static void start(void) { e2e_start_cluster(&stack, 2, 2, true, NULL, NULL); }
static void stop(void) { e2e_stop(&stack); }

#define PLAYERS 20

Test(e2e_cluster, players_spread_over_shards_by_the_gates_hash, .init = start, .fini = stop, .timeout = 60)
{
    int on[2] = { 0, 0 };
    for (uint64_t p = 1; p <= PLAYERS; p++) {
        int fd = e2e_login(stack.port[p % 2], p);   /* through either gate */
        for (uint64_t seq = 1; seq <= 2; seq++)
            e2e_exchange(fd, seq, 1000, 1000, 0);
        close(fd);
        on[ts_shard_of(p, 2)]++;
    }
    cr_assert_gt(on[0], 0);
    cr_assert_gt(on[1], 0);
    e2e_sleep_us(400000);
    for (uint64_t p = 1; p <= PLAYERS; p++) {
        int k = (int) ts_shard_of(p, 2);
        cr_assert_eq(e2e_db_value(stack.db[k], p, "samples"), 2, "player %llu on shard %d", (unsigned long long) p, k);
        cr_assert_eq(e2e_db_value(stack.db[1 - k], p, "samples"), INT64_MIN, "and only there");
    }
}

Test(e2e_cluster, a_player_moving_to_the_other_gate_keeps_its_history, .init = start, .fini = stop, .timeout = 60)
{
    int a = e2e_login(stack.port[0], 77);
    for (uint64_t seq = 1; seq <= 3; seq++)
        e2e_exchange(a, seq, 2000, 2000, 0);
    int other = e2e_login(stack.port[1], 78);   /* both gates at once */
    e2e_exchange(other, 1, 2000, 2000, 0);

    int b = e2e_login(stack.port[1], 77);       /* the same player through the other gate */
    msgpack_unpacked m;
    msgpack_unpacked_init(&m);
    cr_assert(e2e_recv(a, &m, 2000), "the first session hears of it");
    cr_assert_eq(e2e_int(&m, 0), 127, "BYE");
    msgpack_object reason = m.data.via.array.ptr[2];
    cr_assert(reason.type == MSGPACK_OBJECT_STR && reason.via.str.size == 8
              && memcmp(reason.via.str.ptr, "replaced", 8) == 0, "BYE \"replaced\"");
    msgpack_unpacked_destroy(&m);
    cr_assert(e2e_closed(a, 2000));
    close(a);
    for (uint64_t seq = 4; seq <= 5; seq++)
        e2e_exchange(b, seq, 2000, 2000, 0);
    e2e_sleep_us(400000);
    int k = (int) ts_shard_of(77, 2);
    cr_assert_eq(e2e_db_value(stack.db[k], 77, "samples"), 5, "history carried across gates");
    cr_assert_eq(e2e_db_value(stack.db[k], 77, "online"), 1);
    close(b);
    close(other);
}

Test(e2e_cluster, admin_finds_every_player_on_its_shard, .init = start, .fini = stop, .timeout = 60)
{
    for (uint64_t p = 100; p < 110; p++) {
        int fd = e2e_login(stack.port[p % 2], p);
        e2e_exchange(fd, 1, 1000, 1000, 0);
        close(fd);
    }
    e2e_sleep_us(400000);
    for (uint64_t p = 100; p < 110; p++) {
        char cmd[256], *out;
        snprintf(cmd, sizeof cmd, "%s --admin http://127.0.0.1:%d,http://127.0.0.1:%d --json latency %llu", TS_ADMIN_BIN,
                 stack.admin_port[0], stack.admin_port[1], (unsigned long long) p);
        cr_assert_eq(e2e_run(cmd, &out), 0, "%s", out);
        json_t *v = json_loads(out, 0, NULL);
        cr_assert(v, "%s", out);
        cr_assert_eq(json_integer_value(json_object_get(v, "shard")), (json_int_t) ts_shard_of(p, 2));
        cr_assert_eq(json_integer_value(json_object_get(v, "samples")), 1);
        json_decref(v);
        free(out);
    }
}

/* Gates started before their shards count them up for a moment before
 * ZeroMQ has connected: a player who logs in then is still online on its
 * shard, because an OPEN the shard's socket would not take is sent again. */
static void start_cold(void) { e2e_start_cluster_cold(&stack, 2, 2); }

/* The first player of 1..PLAYERS not online on its shard within
 * within_us, or 0 when all are. */
static uint64_t first_offline(int64_t within_us)
{
    int64_t until = e2e_mono_us() + within_us;
    for (;;) {
        uint64_t p = 1;
        while (p <= PLAYERS && e2e_db_value(stack.db[ts_shard_of(p, 2)], p, "online") == 1)
            p++;
        if (p > PLAYERS || e2e_mono_us() > until)
            return p > PLAYERS ? 0 : p;
        e2e_sleep_us(100000);
    }
}

Test(e2e_cluster, players_logged_in_as_the_cluster_starts_are_online, .init = start_cold, .fini = stop, .timeout = 60)
{
    int fd[PLAYERS];
    for (uint64_t p = 1; p <= PLAYERS; p++)
        fd[p - 1] = e2e_login(stack.port[p % 2], p);
    uint64_t p = first_offline(10000000);
    cr_assert_eq(p, 0, "player %llu online on shard %d", (unsigned long long) p, (int) ts_shard_of(p, 2));
    for (int i = 0; i < PLAYERS; i++)
        close(fd[i]);
}

/* Players who log in while their shards are down (the gates gave up on
 * them: the OPENs are dropped and counted) and make no exchange are online
 * once the shards come up: each gate tells a shard that comes up of every
 * session it holds there (HELD). Under AddressSanitizer a scene may start
 * slower than the gates' 800 ms of benefit of the doubt, and the test
 * above then failed. */
static void start_without_scenes(void) { e2e_start_cluster(&stack, 2, 2, false, NULL, NULL); }

Test(e2e_cluster, players_logged_in_while_their_shards_were_down_are_online_once_they_come_up,
     .init = start_without_scenes, .fini = stop, .timeout = 60)
{
    e2e_sleep_us(1200000);   /* past GATE_SHARD_DEAD_US: the gates count the shards down */
    int fd[PLAYERS];
    for (uint64_t p = 1; p <= PLAYERS; p++)
        fd[p - 1] = e2e_login(stack.port[p % 2], p);
    e2e_sleep_us(300000);
    for (int k = 0; k < 2; k++)
        e2e_start_scene(&stack, k);
    uint64_t p = first_offline(10000000);
    cr_assert_eq(p, 0, "player %llu online on shard %d", (unsigned long long) p, (int) ts_shard_of(p, 2));
    for (int i = 0; i < PLAYERS; i++)
        close(fd[i]);
}
