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
#include "http.h"

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
    /* bench/accuracy --ticks holds the 99 % target in simulated time; here
     * the host's own scheduling also delays the exchanges the estimator
     * measures (99.5-99.9 % on an idle machine, 98.2 % once under a full CI
     * run); with no lead at all most would be late (5-40 ms up, 17 ms ticks) */
    double in_time = json_real_value(json_object_get(s, "inputs_in_time"));
    cr_assert_geq(in_time, 0.97, "inputs in time: %.4f", in_time);
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

/* The speed flag: each player's clock rate from its SYNCs' t1 against the
 * gate's arrival stamps, over a 10 s span here (30 s by default). */
static const char *const speed_scene[] = { "--speed-span-s", "10", "--speed-bound-ppm", "5000", NULL };
static void start_speed(void) { e2e_start_cluster(&stack, 1, 1, true, NULL, speed_scene); }

/* An admin API answer of the shard, checked for its status. */
static char *admin_text(const char *path, int status)
{
    char url[64], err[TS_ERR_MAX];
    snprintf(url, sizeof url, "http://127.0.0.1:%d", stack.admin_port[0]);
    ts_http_answer_t a;
    cr_assert_eq(ts_http_get(url, path, NULL, 3000, &a, err), 0, "%s", err);
    cr_assert_eq(a.status, status, "%s: %d %s", path, a.status, a.body);
    return a.body;
}

static json_t *admin_json(const char *path, int status)
{
    char *body = admin_text(path, status);
    json_t *v = json_loads(body, 0, NULL);
    cr_assert(v, "%s", body);
    free(body);
    return v;
}

static json_t *flagged(const char *kind)
{
    char path[64];
    snprintf(path, sizeof path, "/v1/players?flag=%s&limit=1000", kind);
    return admin_json(path, 200);
}

Test(e2e_bot, honest_clocks_are_never_flagged_and_a_fast_one_is_once_the_span_is_reached, .init = start_speed,
     .fini = stop, .timeout = 120)
{
    /* 40 honest players (crystals within +-200 ppm, exponential queueing) and 3 whose clocks run 1% fast */
    char honest[512], fast[512], *out;
    snprintf(honest, sizeof honest,
             "%s --gate 127.0.0.1:%d --players 40 --duration-s 16 --up-ms 5-25 --down-ms 5-25 --jitter exponential"
             " --jitter-ms 2 --drift-ppm -200-200 --quiet >/dev/null 2>&1 &", TS_BOT_BIN, stack.port[0]);
    cr_assert_eq(system(honest), 0);
    snprintf(fast, sizeof fast, "%s --gate 127.0.0.1:%d --players 3 --first-player 900 --duration-s 16 --speed 1.01"
             " --quiet", TS_BOT_BIN, stack.port[0]);
    e2e_sleep_us(4000000);
    json_t *early = flagged("speed");
    cr_assert_eq(json_array_size(json_object_get(early, "players")), 0, "nobody before the span is reached");
    json_decref(early);
    cr_assert_eq(e2e_run(fast, &out), 0, "%s", out);
    free(out);
    e2e_sleep_us(300000);
    json_t *speeding = flagged("speed");
    json_t *list = json_object_get(speeding, "players");
    cr_assert_eq(json_array_size(list), 3, "the three 1%% fast clocks, and no honest one: %s",
                 json_dumps(speeding, JSON_COMPACT));
    for (size_t i = 0; i < json_array_size(list); i++) {
        json_t *row = json_array_get(list, i);
        json_int_t id = json_integer_value(json_object_get(row, "player_id"));
        json_int_t ppm = json_integer_value(json_object_get(row, "clock_rate_ppm"));
        cr_assert(id >= 900 && id < 903, "player %lld", (long long) id);
        cr_assert(ppm > 8000 && ppm < 12000, "a 1%% fast clock reads %lld ppm", (long long) ppm);
        cr_assert(json_is_true(json_object_get(row, "speed_flag")));
    }
    json_decref(speeding);
    json_t *honest_row = admin_json("/v1/players/1", 200);
    json_t *rate = json_object_get(honest_row, "clock_rate_ppm");
    cr_assert(json_is_integer(rate) && llabs(json_integer_value(rate)) < 2000, "an honest crystal: %s",
              json_dumps(honest_row, JSON_COMPACT));
    cr_assert(json_is_false(json_object_get(honest_row, "speed_flag")));
    json_decref(honest_row);
    json_t *bad = admin_json("/v1/players?flag=fast", 400);
    cr_assert(json_is_string(json_object_get(bad, "error")));
    json_decref(bad);
    char *metrics = admin_text("/metrics", 200);
    cr_assert(strstr(metrics, "ticksync_scene_players_flagged{kind=\"speed\"} 3"), "%s", metrics);
    free(metrics);
}
