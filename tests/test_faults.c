/* tests/test_faults.c - faults applied to the real binaries on loopback, as
 * an operator meets them (docs/DESIGN.md, "Faults"): a gate killed under
 * its players, a full disk, a read-only folder, a store file that is not a
 * store, a scene killed in the middle of a history step. Each case prints
 * the figures it measured on stderr ("faults: ..."). */
#include <criterion/criterion.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "e2e.h"

static e2e_stack_t stack;

static void stop(void) { e2e_stop(&stack); }

/* The scene's three views of who is online: /v1/stats, the gauge, and the
 * rows in the SQLite file. */
typedef struct { long long stats, gauge, rows; } online_t;

static online_t online_now(int k)
{
    online_t o = { -1, -1, -1 };
    char *body = NULL;
    if (e2e_http_get(stack.admin_port[k], "/v1/stats", &body) == 200) {
        json_t *j = json_loads(body, 0, NULL);
        o.stats = j ? json_integer_value(json_object_get(j, "players_online")) : -1;
        json_decref(j);
    }
    free(body);
    o.gauge = e2e_metric(stack.admin_port[k], "ticksync_scene_players_online");
    o.rows = e2e_db_query(stack.db[k], "SELECT count(*) FROM player_latency WHERE online");
    return o;
}

/* Waits up to timeout_us for all three views to say n; returns how long it
 * took, or -1 (with the last views in *last). */
static int64_t wait_online(int k, long long n, int64_t timeout_us, online_t *last)
{
    int64_t t0 = e2e_mono_us();
    do {
        *last = online_now(k);
        if (last->stats == n && last->gauge == n && last->rows == n)
            return e2e_mono_us() - t0;
        e2e_sleep_us(50000);
    } while (e2e_mono_us() - t0 < timeout_us);
    return -1;
}

static pid_t start_bot(int players, int seconds, const char *out)
{
    char gate[32], n[16], d[16];
    snprintf(gate, sizeof gate, "127.0.0.1:%d", stack.port[0]);
    snprintf(n, sizeof n, "%d", players);
    snprintf(d, sizeof d, "%d", seconds);
    const char *argv[] = { TS_BOT_BIN, "--gate", gate, "--players", n, "--duration-s", d, "--up-ms", "2-10",
                           "--down-ms", "2-10", "--json", "--quiet", NULL };
    return e2e_spawn(argv, out);
}

static json_t *bot_summary(pid_t bot, const char *out)
{
    int status;
    cr_assert_eq(waitpid(bot, &status, 0), bot);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the bot failed");
    json_error_t e;
    json_t *s = json_load_file(out, 0, &e);
    cr_assert(s, "the bot's summary: %s", e.text);
    return s;
}

/* A gate SIGKILLed under 200 bot players and started again 1 s later on
 * the same ports: the bot's players reconnect with backoff and are all
 * online again within 5 s; no row says online for a player no gate holds,
 * and /v1/stats, the gauge and the rows agree throughout. Then a gate
 * killed for good: its players are offline once it has been silent 2 s. */
Test(faults, gate_killed_under_players_comes_back_without_phantoms, .fini = stop, .timeout = 120)
{
    e2e_start(&stack, true, NULL);
    char out[128];
    snprintf(out, sizeof out, "%s/bot.json", stack.dir);
    pid_t bot = start_bot(200, 20, out);
    online_t o;
    cr_assert_geq(wait_online(0, 200, 10000000, &o), 0, "200 online before the fault: %lld/%lld/%lld", o.stats,
                  o.gauge, o.rows);

    kill(stack.gate[0], SIGKILL);
    waitpid(stack.gate[0], NULL, 0);
    stack.gate[0] = 0;
    e2e_sleep_us(1000000);
    int64_t t0 = e2e_mono_us();
    e2e_start_gate(&stack, 0);
    /* back: each player welcomed by the new gate (the scene still counts
     * the old gate's sessions until it has been silent 2 s) */
    while (e2e_metric(stack.metrics_port[0], "ticksync_gate_sessions") < 200 && e2e_mono_us() - t0 < 5000000)
        e2e_sleep_us(20000);
    int64_t back = e2e_mono_us() - t0;
    cr_assert_eq(e2e_metric(stack.metrics_port[0], "ticksync_gate_sessions"), 200,
                 "all 200 back on the new gate within 5 s");
    cr_assert_geq(wait_online(0, 200, 5000000 - back, &o), 0,
                  "all 200 online within 5 s of the restart: stats %lld, gauge %lld, rows %lld", o.stats, o.gauge,
                  o.rows);
    /* the old gate falls silent for good 2 s after the kill: none of its
     * players that came back through the new gate may go offline with it */
    e2e_sleep_us(2500000);
    online_t after = online_now(0);
    cr_assert(after.stats == 200 && after.gauge == 200 && after.rows == 200,
              "still 200 once the old gate is lost: stats %lld, gauge %lld, rows %lld", after.stats, after.gauge,
              after.rows);

    kill(stack.gate[0], SIGKILL);   /* for good this time */
    waitpid(stack.gate[0], NULL, 0);
    stack.gate[0] = 0;
    int64_t gone = wait_online(0, 0, 5000000, &o);
    cr_assert_geq(gone, 0, "no phantom online rows once the gate is gone: stats %lld, gauge %lld, rows %lld", o.stats,
                  o.gauge, o.rows);
    long long lost = e2e_metric(stack.admin_port[0], "ticksync_scene_gates_lost_total");
    cr_assert_geq(lost, 2, "both dead gates counted lost");
    json_t *s = bot_summary(bot, out);
    fprintf(stderr,
            "faults: gate SIGKILL, restart after 1 s: 200/200 bot players online again %.2f s after the restart "
            "(bot: %lld disconnects, %lld reconnects); gate killed for good: 0 online %.2f s later; views agreed\n",
            (double) back / 1e6, (long long) json_integer_value(json_object_get(s, "disconnects")),
            (long long) json_integer_value(json_object_get(s, "reconnects")), (double) gone / 1e6);
    json_decref(s);
}

/* ---- SIGKILL in the middle of a history step ---------------------------------- */

/* One exchange over fd: true when the shard measured it (SYNC_RESULT),
 * false when the gate answered its SYNC_ACK UNAVAILABLE (the shard was
 * being restarted). */
static bool try_exchange(int fd, uint64_t seq)
{
    msgpack_unpacked m;
    msgpack_unpacked_init(&m);
    e2e_send(fd, "uui", (uint64_t) 16, seq, (int64_t) 1000);
    cr_assert(e2e_recv(fd, &m, 2000), "a SYNC_REPLY");
    cr_assert_eq(e2e_int(&m, 0), 17);
    e2e_send(fd, "uuii", (uint64_t) 18, seq, (int64_t) 2000, (int64_t) 2001);
    cr_assert(e2e_recv(fd, &m, 3000), "a SYNC_RESULT or an ERROR");
    bool measured = e2e_int(&m, 0) == 19;
    msgpack_unpacked_destroy(&m);
    return measured;
}

static long long scene_exchanges(void)
{
    return e2e_metric(stack.admin_port[0], "ticksync_scene_exchanges_total")
         + e2e_metric(stack.admin_port[0], "ticksync_scene_lost_total");
}

static int64_t real_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static const char *const step_3s[] = { "--history-step-s", "3", "--flush-ms", "100", NULL };

/* The scene is SIGKILLed at three points of a 3 s history step (0.4 s,
 * 1.5 s and 2.6 s in), each time 300 ms (three flush intervals) after the
 * last exchange, and started again: every exchange the killed scenes had
 * counted is in player_latency_history, the open steps' included. */
Test(faults, sigkill_in_a_history_step_loses_no_history_older_than_a_flush, .fini = stop, .timeout = 120)
{
    e2e_start_cluster(&stack, 1, 1, true, NULL, step_3s);
    enum { PLAYERS = 20 };
    int fd[PLAYERS];
    for (int p = 0; p < PLAYERS; p++)
        fd[p] = e2e_login(stack.port[0], (uint64_t) (300 + p));
    const int64_t step = 3000000, kill_at[] = { 400000, 1500000, 2600000 };
    long long counted = 0, measured = 0;
    uint64_t seq = 0;
    for (int k = 0; k < 3; k++) {
        /* exchanges until 300 ms before the kill point of the next step */
        /* the step is in server (real) time */
        int64_t real = real_us(), kill_real = real - real % step + step + kill_at[k];
        int64_t quiet_from = kill_real - 300000;
        while (real_us() < quiet_from) {
            ++seq;
            for (int p = 0; p < PLAYERS; p++)
                measured += try_exchange(fd[p], seq);
            e2e_sleep_us(100000);   /* within the gate's 20 SYNCs a second */
        }
        real = real_us();
        if (kill_real > real)
            e2e_sleep_us(kill_real - real);
        counted += scene_exchanges();
        kill(stack.scene[0], SIGKILL);
        waitpid(stack.scene[0], NULL, 0);
        e2e_start_scene(&stack, 0);
    }
    long long stored = e2e_db_query(stack.db[0], "SELECT total(exchanges) FROM player_latency_history");
    fprintf(stderr, "faults: SIGKILL at 0.4, 1.5 and 2.6 s of a 3 s history step: %lld exchanges counted by the "
            "killed scenes (%lld measured by the clients), %lld in the history, %lld lost\n",
            counted, measured, stored, counted - stored);
    cr_assert_gt(measured, 100);
    cr_assert_eq(stored, counted, "every exchange older than a flush is in the history");
    for (int p = 0; p < PLAYERS; p++)
        close(fd[p]);
}
