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
