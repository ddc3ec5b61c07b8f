/* tests/test_e2e_admin.c - the operators' view with the real processes: a
 * gate over two scene shards, the admin HTTP API's every route and status,
 * ticksync-admin's table and JSON, promtool on both /metrics, /healthz,
 * a dead shard and the bearer token. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "e2e.h"
#include "shard.h"

static e2e_stack_t stack;

/* Players 1..4 with round trips of 10, 20, 30 and 40 ms: far enough apart
 * that a machine's stall of a few ms (5.9 ms seen under ASan) cannot swap
 * two players' order in top. */
#define PLAYERS 4
static int fds[PLAYERS + 1];

static int64_t injected_rtt(uint64_t p) { return (int64_t) p * 10000; }
static int shard_of(uint64_t p) { return (int) ts_shard_of(p, 2); }

/* Each player's RFC 6298 SRTT over the round trips the server really had
 * to measure (e2e_last_applied_us), which this machine may stretch: from
 * the figures read before and after each ACK's send, which the server's
 * lies between. */
static double truth[PLAYERS + 1], truth_after[PLAYERS + 1];
static int exchanged[PLAYERS + 1];

static void play(int exchanges)
{
    for (uint64_t p = 1; p <= PLAYERS; p++) {
        if (!fds[p])
            fds[p] = e2e_login(stack.port[0], p);
        for (int i = 0; i < exchanges; i++) {
            e2e_exchange(fds[p], (uint64_t) i + 1, injected_rtt(p) / 2, injected_rtt(p) / 2, 0);
            double applied = (double) e2e_last_applied_us(), after = (double) e2e_last_applied_after_us();
            bool first = exchanged[p]++ == 0;
            truth[p] = first ? applied : truth[p] + (applied - truth[p]) / 8;
            truth_after[p] = first ? after : truth_after[p] + (after - truth_after[p]) / 8;
        }
    }
}

static void start(void)
{
    memset(fds, 0, sizeof fds);
    memset(truth, 0, sizeof truth);
    memset(truth_after, 0, sizeof truth_after);
    memset(exchanged, 0, sizeof exchanged);
    e2e_start_cluster(&stack, 2, 1, true, NULL, NULL);
}

static void stop(void)
{
    for (int p = 1; p <= PLAYERS; p++)
        if (fds[p])
            close(fds[p]);
    e2e_stop(&stack);
}

/* GETs path from shard k's admin API, expects status, returns the JSON. */
static json_t *get_json(int k, const char *path, int status)
{
    char *body = NULL;
    int got = e2e_http_get(stack.admin_port[k], path, &body);
    cr_assert_eq(got, status, "GET %s on shard %d: %d, not %d (%s)", path, k, got, status, body);
    json_error_t err;
    json_t *v = json_loads(body, 0, &err);
    cr_assert(v, "GET %s is not JSON: %s", path, body);
    free(body);
    return v;
}

static json_int_t field(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    cr_assert(json_is_integer(v), "field %s", key);
    return json_integer_value(v);
}

Test(e2e_admin, every_route_and_status, .init = start, .fini = stop, .timeout = 60)
{
    play(3);
    e2e_sleep_us(200000);   /* "an answer reflects an exchange within 200 ms" */
    char path[64];
    for (uint64_t p = 1; p <= PLAYERS; p++) {
        snprintf(path, sizeof path, "/v1/players/%llu", (unsigned long long) p);
        json_t *row = get_json(shard_of(p), path, 200);
        cr_assert_eq(field(row, "player_id"), (json_int_t) p);
        cr_assert_eq(field(row, "samples"), 3);
        cr_assert(json_is_true(json_object_get(row, "online")));
        cr_assert(json_is_false(json_object_get(row, "lag_flag")));
        cr_assert_eq(field(row, "delay_us"), field(row, "srtt_us") / 2);
        double srtt = (double) field(row, "srtt_us");
        cr_assert(srtt > truth[p] - 1500 && srtt < truth_after[p] + 1500,
                  "srtt %.0f for %.0f..%.0f applied (%lld injected)", srtt, truth[p], truth_after[p],
                  (long long) injected_rtt(p));
        const char *schema[] = { "rtt_us", "rttvar_us", "min_rtt_us", "invalid", "lost", "client_rtt_us",
                                 "client_offset_us", "updated_at_us", "lag_strikes" };
        for (size_t i = 0; i < sizeof schema / sizeof schema[0]; i++)
            field(row, schema[i]);
        json_decref(row);
        json_decref(get_json(1 - shard_of(p), path, 404));   /* the other shard does not know it */
    }
    const char *bad_ids[] = { "0", "abc", "-5", "1x", "99999999999999999999", "" };
    for (size_t i = 0; i < sizeof bad_ids / sizeof bad_ids[0]; i++) {
        snprintf(path, sizeof path, "/v1/players/%s", bad_ids[i]);
        json_decref(get_json(0, path, 400));
    }
    json_decref(get_json(0, "/v1/players/123456", 404));
    json_decref(get_json(0, "/v1/nope", 404));
    json_decref(get_json(0, "/", 404));

    for (int k = 0; k < 2; k++) {
        json_t *list = get_json(k, "/v1/players?order=worst&limit=10", 200);
        json_t *players = json_object_get(list, "players");
        size_t mine = 0;
        for (uint64_t p = 1; p <= PLAYERS; p++)
            mine += shard_of(p) == k;
        cr_assert_eq(json_array_size(players), mine);
        for (size_t i = 1; i < json_array_size(players); i++)
            cr_assert_geq(field(json_array_get(players, i - 1), "srtt_us"), field(json_array_get(players, i), "srtt_us"));
        json_decref(list);
        list = get_json(k, "/v1/players?order=best&limit=1", 200);
        cr_assert_leq(json_array_size(json_object_get(list, "players")), 1);
        json_decref(list);
        json_t *stats = get_json(k, "/v1/stats", 200);
        cr_assert_eq(field(stats, "players_known"), (json_int_t) mine);
        cr_assert_eq(field(stats, "players_online"), (json_int_t) mine);
        cr_assert_eq(field(stats, "samples"), (json_int_t) (3 * mine));
        cr_assert_eq(field(stats, "exchanges"), (json_int_t) (3 * mine));
        cr_assert_eq(field(stats, "lost"), 0);
        json_t *delay = json_object_get(stats, "delay_us");
        cr_assert_leq(field(delay, "p50"), field(delay, "p99"));
        cr_assert_leq(field(delay, "p99"), field(delay, "max"));
        json_decref(stats);
        json_decref(get_json(k, "/healthz", 200));
    }
    json_decref(get_json(0, "/v1/players?order=sideways", 400));
    json_decref(get_json(0, "/v1/players?limit=0", 400));
    json_decref(get_json(0, "/v1/players?limit=1001", 400));
    cr_assert_eq(e2e_http_get(stack.metrics_port[0], "/healthz", NULL), 200);
    cr_assert_eq(e2e_http_get(stack.metrics_port[0], "/nope", NULL), 404);

    /* online follows the connection */
    close(fds[1]);
    fds[1] = 0;
    e2e_sleep_us(400000);
    json_t *row = get_json(shard_of(1), "/v1/players/1", 200);
    cr_assert(json_is_false(json_object_get(row, "online")), "offline once disconnected");
    json_decref(row);
}

/* The admin URLs of the stack, in shard order. */
static const char *admin_flag(void)
{
    static char flag[128];
    snprintf(flag, sizeof flag, "--admin=http://127.0.0.1:%d,http://127.0.0.1:%d", stack.admin_port[0],
             stack.admin_port[1]);
    return flag;
}

static int admin(const char *args, char **out)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s %s %s 2>&1", TS_ADMIN_BIN, admin_flag(), args);
    return e2e_run(cmd, out);
}

Test(e2e_admin, cli_table_and_json, .init = start, .fini = stop, .timeout = 60)
{
    play(2);
    e2e_sleep_us(300000);
    char *out;
    /* latency asks the player's own shard */
    for (uint64_t p = 1; p <= PLAYERS; p++) {
        char args[64];
        snprintf(args, sizeof args, "--json latency %llu", (unsigned long long) p);
        cr_assert_eq(admin(args, &out), 0, "%s", out);
        json_t *v = json_loads(out, 0, NULL);
        cr_assert(v, "JSON: %s", out);
        cr_assert_eq(field(v, "player_id"), (json_int_t) p);
        cr_assert_eq(field(v, "shard"), shard_of(p));
        cr_assert_eq(field(v, "samples"), 2);
        json_decref(v);
        free(out);
    }
    cr_assert_eq(admin("latency 3", &out), 0);
    cr_assert(strstr(out, "player      3\n") && strstr(out, "online      yes\n") && strstr(out, "samples     2"), "%s", out);
    free(out);
    cr_assert_eq(admin("latency 987654", &out), 3, "unknown player: exit 3");
    cr_assert(strstr(out, "unknown"), "%s", out);
    free(out);
    cr_assert_eq(admin("latency zero", &out), 2);
    free(out);

    /* top merges the shards: worst first by default */
    cr_assert_eq(admin("--json top -n 3", &out), 0, "%s", out);
    json_t *v = json_loads(out, 0, NULL);
    json_t *players = json_object_get(v, "players");
    cr_assert_eq(json_array_size(players), 3);
    cr_assert_eq(field(json_array_get(players, 0), "player_id"), 4);
    cr_assert_eq(field(json_array_get(players, 1), "player_id"), 3);
    cr_assert_eq(field(json_array_get(players, 2), "player_id"), 2);
    json_decref(v);
    free(out);
    cr_assert_eq(admin("top --best -n 1", &out), 0);
    cr_assert(strstr(out, "PLAYER") && strstr(out, "\n1 "), "%s", out);
    cr_assert_null(strstr(out, "\n4 "), "%s", out);
    free(out);

    /* stats adds the shards up */
    cr_assert_eq(admin("--json stats", &out), 0, "%s", out);
    v = json_loads(out, 0, NULL);
    json_t *total = json_object_get(v, "total");
    cr_assert_eq(field(total, "players_known"), PLAYERS);
    cr_assert_eq(field(total, "samples"), 2 * PLAYERS);
    cr_assert_eq(json_array_size(json_object_get(v, "shards")), 2);
    json_decref(v);
    free(out);
    cr_assert_eq(admin("stats", &out), 0);
    cr_assert(strstr(out, "SHARD") && strstr(out, "\nall "), "%s", out);
    free(out);
    cr_assert_eq(admin("frobnicate", &out), 2);
    free(out);
}

static void promtool_check(int port)
{
    char *body = NULL;
    cr_assert_eq(e2e_http_get(port, "/metrics", &body), 200);
    char file[64], cmd[160];
    snprintf(file, sizeof file, "/tmp/ts-metrics-%d-%d", (int) getpid(), port);
    FILE *f = fopen(file, "w");
    fputs(body, f);
    fclose(f);
    free(body);
    snprintf(cmd, sizeof cmd, "promtool check metrics < %s 2>&1", file);
    char *out;
    int rc = e2e_run(cmd, &out);
    cr_assert_eq(rc, 0, "promtool on port %d: %s", port, out);
    free(out);
    unlink(file);
}

Test(e2e_admin, promtool_accepts_both_processes_metrics, .init = start, .fini = stop, .timeout = 60)
{
    play(2);
    e2e_sleep_us(300000);
    promtool_check(stack.metrics_port[0]);
    promtool_check(stack.admin_port[0]);
    promtool_check(stack.admin_port[1]);
    char *body;
    cr_assert_eq(e2e_http_get(stack.admin_port[0], "/metrics", &body), 200);
    cr_assert(strstr(body, "ticksync_scene_exchanges_total"), "%s", body);
    free(body);
    cr_assert_eq(e2e_http_get(stack.metrics_port[0], "/metrics", &body), 200);
    cr_assert(strstr(body, "ticksync_gate_sessions 4"), "%s", body);
    free(body);
}

Test(e2e_admin, a_dead_shard_is_reported_and_the_rest_serves, .init = start, .fini = stop, .timeout = 60)
{
    play(1);
    e2e_sleep_us(300000);
    kill(stack.scene[1], SIGKILL);
    waitpid(stack.scene[1], NULL, 0);
    stack.scene[1] = 0;
    char *out;
    cr_assert_neq(admin("stats", &out), 0, "stats with a dead shard fails");
    cr_assert(strstr(out, "shard 1") && strstr(out, "unreachable"), "%s", out);
    free(out);
    uint64_t alive = shard_of(1) == 0 ? 1 : shard_of(2) == 0 ? 2 : shard_of(3) == 0 ? 3 : 4;
    char args[64];
    snprintf(args, sizeof args, "latency %llu", (unsigned long long) alive);
    cr_assert_eq(admin(args, &out), 0, "the live shard still answers: %s", out);
    free(out);
    e2e_sleep_us(1200000);
    cr_assert_eq(e2e_http_get(stack.metrics_port[0], "/healthz", NULL), 200, "one shard is enough");
    kill(stack.scene[0], SIGKILL);
    waitpid(stack.scene[0], NULL, 0);
    stack.scene[0] = 0;
    e2e_sleep_us(1200000);
    cr_assert_eq(e2e_http_get(stack.metrics_port[0], "/healthz", NULL), 503, "no shard: unhealthy");
}

static char token_path[64];
static const char *token_flags[3];

static void start_token(void)
{
    snprintf(token_path, sizeof token_path, "/tmp/ts-admin-token-%d", (int) getpid());
    FILE *f = fopen(token_path, "w");
    fputs("s3cret-admin\n", f);
    fclose(f);
    token_flags[0] = "--admin-token-file";
    token_flags[1] = token_path;
    memset(fds, 0, sizeof fds);
    memset(truth, 0, sizeof truth);
    memset(truth_after, 0, sizeof truth_after);
    memset(exchanged, 0, sizeof exchanged);
    e2e_start_cluster(&stack, 2, 1, true, NULL, token_flags);
}

static void stop_token(void)
{
    stop();
    unlink(token_path);
}

Test(e2e_admin, bearer_token_is_enforced_when_set, .init = start_token, .fini = stop_token, .timeout = 60)
{
    cr_assert_eq(e2e_http_get(stack.admin_port[0], "/v1/stats", NULL), 401);
    cr_assert_eq(e2e_http_get(stack.admin_port[0], "/metrics", NULL), 401);
    cr_assert_eq(e2e_http_get(stack.admin_port[0], "/healthz", NULL), 200, "health stays open for probes");
    char *out, args[128];
    cr_assert_neq(admin("stats", &out), 0);
    free(out);
    snprintf(args, sizeof args, "--token-file %s stats", token_path);
    cr_assert_eq(admin(args, &out), 0, "%s", out);
    free(out);
}

/* The latency history, with 1 s steps. */
static const char *const history_scene[] = { "--history-step-s", "1", NULL };
static void start_history(void)
{
    memset(fds, 0, sizeof fds);
    memset(truth, 0, sizeof truth);
    memset(truth_after, 0, sizeof truth_after);
    memset(exchanged, 0, sizeof exchanged);
    e2e_start_cluster(&stack, 2, 1, true, NULL, history_scene);
}

Test(e2e_admin, a_player_s_latency_history_step_by_step, .init = start_history, .fini = stop, .timeout = 60)
{
    int64_t began = ts_clock_real_us();
    for (int round = 0; round < 4; round++) {   /* exchanges in at least three steps of 1 s */
        play(2);
        e2e_sleep_us(600000);
    }
    e2e_sleep_us(1600000);   /* the last step ends, the sweep sends it, the writer flushes */
    uint64_t p = 3;
    int k = shard_of(p);
    char path[128];
    snprintf(path, sizeof path, "/v1/players/%llu/history", (unsigned long long) p);
    json_t *h = get_json(k, path, 200);
    cr_assert_eq(field(h, "player_id"), (json_int_t) p);
    cr_assert_eq(field(h, "step_s"), 1);
    json_t *points = json_object_get(h, "points");
    cr_assert_geq(json_array_size(points), 3, "a step a second: %s", json_dumps(h, JSON_COMPACT));
    json_int_t total = 0, last_t = 0;
    for (size_t i = 0; i < json_array_size(points); i++) {
        json_t *pt = json_array_get(points, i);
        cr_assert_gt(field(pt, "t_us"), last_t, "oldest first");
        cr_assert_eq(field(pt, "t_us") % 1000000, 0, "a step starts on a whole second");
        last_t = field(pt, "t_us");
        total += field(pt, "exchanges");
        cr_assert_eq(field(pt, "lost"), 0);
        /* the round trip the test applied: 12 ms, and the scene's own slack */
        cr_assert(field(pt, "rtt_min_us") >= injected_rtt(p) && field(pt, "rtt_max_us") < injected_rtt(p) + 30000,
                  "%s", json_dumps(pt, JSON_COMPACT));
        cr_assert(field(pt, "rtt_min_us") <= field(pt, "rtt_p50_us") && field(pt, "rtt_p50_us") <= field(pt, "rtt_max_us"));
        cr_assert_geq(field(pt, "jitter_us"), 0);
    }
    cr_assert_eq(total, 8, "every exchange in some step");
    json_decref(h);
    /* a range: only the steps that start in it */
    snprintf(path, sizeof path, "/v1/players/%llu/history?from=%lld&to=%lld", (unsigned long long) p,
             (long long) (began - 10000000), (long long) (began - 1000000));   /* steps starting a step before */
    h = get_json(k, path, 200);
    cr_assert_eq(json_array_size(json_object_get(h, "points")), 0, "nothing before the test began");
    json_decref(h);
    /* bad input */
    snprintf(path, sizeof path, "/v1/players/%llu/history?from=5&to=4", (unsigned long long) p);
    json_decref(get_json(k, path, 400));
    snprintf(path, sizeof path, "/v1/players/%llu/history?from=abc", (unsigned long long) p);
    json_decref(get_json(k, path, 400));
    json_decref(get_json(k, "/v1/players/0/history", 400));
    json_decref(get_json(k, "/v1/players/424242/history", 404));
    json_decref(get_json(k, "/v1/players/3/elsewhere", 404));
    /* the CLI asks the player's shard: a line a step and the p50 as a sparkline */
    char *out;
    cr_assert_eq(admin("history 3 --last 10m", &out), 0, "%s", out);
    cr_assert(strstr(out, "player 3, shard") && strstr(out, "steps of 1 s"), "%s", out);
    cr_assert(strstr(out, "p50 ") && (strstr(out, "\xe2\x96") != NULL), "a sparkline: %s", out);
    free(out);
    cr_assert_eq(admin("history 424242", &out), 3, "unknown player: %s", out);
    free(out);
    cr_assert_eq(admin("--json history 3 --last 10m", &out), 0, "%s", out);
    json_t *j = json_loads(out, 0, NULL);
    cr_assert(j && json_array_size(json_object_get(j, "points")) >= 3, "%s", out);
    json_decref(j);
    free(out);
}
