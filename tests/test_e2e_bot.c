/* tests/test_e2e_bot.c - a short ticksync-bot run against the real gate and
 * scene: every player connects and syncs, the server's measured round trips
 * match the injected truth, the clients' server time is within the
 * asymmetry bound of the truth, and it never goes backwards; and a
 * fixed-tick game's inputs, stamped by the timeline, reach the server in time. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e.h"

static e2e_stack_t stack;

static void start(void) { e2e_start(&stack, true, NULL); }
static void stop(void) { e2e_stop(&stack); }

static double stat_of(json_t *summary, const char *dist, const char *key)
{
    json_t *v = json_object_get(json_object_get(summary, dist), key);
    cr_assert(json_is_number(v), "%s.%s", dist, key);
    return json_number_value(v);
}

Test(e2e_bot, injected_truth_is_recovered_by_server_and_clients, .init = start, .fini = stop, .timeout = 120)
{
    char cmd[512], *out;
    snprintf(cmd, sizeof cmd,
             "%s --gate 127.0.0.1:%d --players 100 --duration-s 6 --up-ms 5-25 --down-ms 5-25 --jitter exponential"
             " --jitter-ms 1 --loss 0.01 --drift-ppm -200-200 --offset-ms -60000-60000 --json --quiet",
             TS_BOT_BIN, stack.port[0]);
    cr_assert_eq(e2e_run(cmd, &out), 0, "%s", out);
    json_t *s = json_loads(out, 0, NULL);
    cr_assert(s, "summary is JSON: %s", out);
    free(out);
    cr_assert_eq(json_integer_value(json_object_get(s, "connected")), 100);
    cr_assert_eq(json_integer_value(json_object_get(s, "disconnects")), 0);
    cr_assert_geq(json_integer_value(json_object_get(s, "results")), 100 * 8, "a burst and then one a second");
    cr_assert_eq(json_integer_value(json_object_get(s, "backwards")), 0, "server time never went backwards");
    /* the server measures the round trip the bot applied, plus loopback: the gate stamps with the
     * kernel's arrival times, tens of µs when idle (bench/RESULTS.md) */
    cr_assert_lt(stat_of(s, "server_rtt_error_us", "p50"), 300);
    cr_assert_lt(stat_of(s, "server_rtt_error_us", "p90"), 1500);
    /* the clients' time is as good as a symmetric estimate can be */
    cr_assert_gt(stat_of(s, "client_offset_error_us", "n"), 1000);
    cr_assert_lt(stat_of(s, "offset_error_beyond_bound_us", "p50"), 1000);
    cr_assert_lt(stat_of(s, "offset_error_beyond_bound_us", "p90"), 3000);
    json_decref(s);
    e2e_sleep_us(300000);
    cr_assert_geq(e2e_db_value(stack.db[0], 1, "samples"), 8, "the first player's row is in SQLite");
}

Test(e2e_bot, a_fixed_tick_game_gets_its_inputs_to_the_server_in_time, .init = start, .fini = stop, .timeout = 120)
{
    /* 60 Hz ticks: each player stamps inputs with ticksync_input_tick, and
     * they take the player's injected way up */
    char cmd[512], *out;
    snprintf(cmd, sizeof cmd,
             "%s --gate 127.0.0.1:%d --players 50 --duration-s 8 --up-ms 5-40 --down-ms 5-40 --jitter-ms 2"
             " --ticks 60 --json --quiet", TS_BOT_BIN, stack.port[0]);
    cr_assert_eq(e2e_run(cmd, &out), 0, "%s", out);
    json_t *s = json_loads(out, 0, NULL);
    cr_assert(s, "summary is JSON: %s", out);
    free(out);
    cr_assert_gt(json_integer_value(json_object_get(s, "inputs")), 50 * 10);
    double in_time = json_real_value(json_object_get(s, "inputs_in_time"));
    cr_assert_geq(in_time, 0.99, "inputs in time: %.4f", in_time);
    cr_assert_eq(json_integer_value(json_object_get(s, "backwards")), 0);
    json_decref(s);
}

Test(e2e_bot, the_fixed_tick_example_settles_on_the_input_tick, .init = start, .fini = stop, .timeout = 60)
{
    /* examples/fixed_tick.c, as a game: its own simulation settles on the
     * input tick, inputs lead the server, nothing goes back */
    char cmd[512], *out;
    snprintf(cmd, sizeof cmd, "%s 127.0.0.1:%d 6 777", TS_EXAMPLE_TICKS_BIN, stack.port[0]);
    cr_assert_eq(e2e_run(cmd, &out), 0, "%s", out);
    cr_assert(strstr(out, "settled on the input tick: yes; inputs ahead of the server: yes; answers that went back: 0"),
              "%s", out);
    cr_assert(strstr(out, "server tick "), "a line a second: %s", out);
    free(out);
}
