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
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
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

/* n players from first, each logged in on its own connection. */
static void login_all(int *fd, int n, uint64_t first)
{
    for (int p = 0; p < n; p++)
        fd[p] = e2e_login(stack.port[0], first + (uint64_t) p);
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
    char *body = NULL;
    cr_assert_eq(e2e_http_get(stack.admin_port[0], "/healthz", &body), 200, "the scene still serves");
    json_t *h = json_loads(body, 0, NULL);
    cr_assert_not_null(h, "%s", body);
    cr_assert_eq(json_integer_value(json_object_get(h, "gates")), 0, "no gate heard from: %s", body);
    cr_assert_geq(json_integer_value(json_object_get(h, "gates_lost")), 2, "the lost gates in /healthz: %s", body);
    cr_assert_gt(json_integer_value(json_object_get(h, "last_gate_lost_us")), 0, "%s", body);
    json_decref(h);
    free(body);
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
 * being restarted); *type and *code say what came (code 0 for a
 * SYNC_RESULT). */
static bool try_exchange_said(int fd, uint64_t seq, int64_t *type, int64_t *code)
{
    msgpack_unpacked m;
    msgpack_unpacked_init(&m);
    e2e_sync_then_ack(fd, seq);
    cr_assert(e2e_recv(fd, &m, 3000), "a SYNC_RESULT or an ERROR");
    *type = e2e_int(&m, 0);
    *code = *type == 19 ? 0 : e2e_int(&m, 2);
    msgpack_unpacked_destroy(&m);
    return *type == 19;
}

static bool try_exchange(int fd, uint64_t seq)
{
    int64_t type, code;
    return try_exchange_said(fd, seq, &type, &code);
}

static long long scene_exchanges(void)
{
    return e2e_metric(stack.admin_port[0], "ticksync_scene_exchanges_total")
         + e2e_metric(stack.admin_port[0], "ticksync_scene_lost_total");
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
    login_all(fd, PLAYERS, 300);
    const int64_t step = 3000000, kill_at[] = { 400000, 1500000, 2600000 };
    long long counted = 0, measured = 0;
    uint64_t seq = 0;
    for (int k = 0; k < 3; k++) {
        /* exchanges until 300 ms before the kill point of the next step */
        /* the step is in server (real) time */
        int64_t real = ts_clock_real_us(), kill_real = real - real % step + step + kill_at[k];
        int64_t quiet_from = kill_real - 300000;
        while (ts_clock_real_us() < quiet_from) {
            ++seq;
            for (int p = 0; p < PLAYERS; p++)
                measured += try_exchange(fd[p], seq);
            e2e_sleep_us(100000);   /* within the gate's 20 SYNCs a second */
        }
        real = ts_clock_real_us();
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
    if (stored != counted) {   /* which steps and players the difference is in */
        long long own = e2e_db_query(stack.db[0], "SELECT total(exchanges) FROM player_latency_history "
                                                  "WHERE player_id BETWEEN 300 AND 319");
        long long steps = e2e_db_query(stack.db[0], "SELECT count(DISTINCT t_us) FROM player_latency_history");
        fprintf(stderr, "faults: %lld of them by this test's players 300-319, in %lld steps\n", own, steps);
    }
    cr_assert_eq(stored, counted, "every exchange older than a flush is in the history");
    for (int p = 0; p < PLAYERS; p++)
        close(fd[p]);
}

/* ---- a full disk ------------------------------------------------------------------ */

/* The stack's folder is an 8 MiB tmpfs, made before the stack starts in it. */
static char tmpfs_dir[64];

static void start_on_tmpfs(const char *const *scene_extra)
{
    snprintf(tmpfs_dir, sizeof tmpfs_dir, "/tmp/ts-e2e-%d", (int) getpid());
    mkdir(tmpfs_dir, 0755);
    cr_assert_eq(mount("tmpfs", tmpfs_dir, "tmpfs", 0, "size=8m"), 0,
                 "mount a tmpfs (the fault suite runs as root, as CI does)");
    e2e_start_cluster(&stack, 1, 1, true, NULL, scene_extra);
    cr_assert_str_eq(stack.dir, tmpfs_dir);
}

static void stop_on_tmpfs(void)
{
    umount2(tmpfs_dir, MNT_DETACH);   /* first: the folder is then removed as any other */
    e2e_stop(&stack);
}

static long long free_bytes(void)
{
    struct statvfs v;
    cr_assert_eq(statvfs(tmpfs_dir, &v), 0);
    return (long long) v.f_bavail * (long long) v.f_frsize;
}

static void fill(const char *name, int mib)   /* mib 0: until the disk is full */
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "dd if=/dev/zero of=%s/%s bs=64k %s%d 2>/dev/null; true", tmpfs_dir, name,
             mib ? "count=" : "count=1000000", mib * 16);
    cr_assert_eq(e2e_run(cmd, NULL), 0);
}

static void unfill(const char *name)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", tmpfs_dir, name);
    cr_assert_eq(unlink(path), 0);
}

/* A round of exchanges for every player; all must be measured. */
static void round_of(int *fd, int n, uint64_t seq)
{
    for (int p = 0; p < n; p++) {
        int64_t type, code;
        cr_assert(try_exchange_said(fd[p], seq, &type, &code),
                  "player %d measured in round %llu (type %lld, code %lld)", p, (unsigned long long) seq,
                  (long long) type, (long long) code);
    }
}

/* The scene's or gate's /healthz: its status code, and the body. */
static int health(int port, char **body)
{
    return e2e_http_get(port, "/healthz", body);
}

static const char *const wal_1mb[] = { "--wal-mb", "1", NULL };

/* The disk fills under a running scene: it goes on measuring; /healthz
 * says 503 with the reason, the gate shows the shard degraded, the gauge
 * says 1 and the log says why, within a second. 3 MiB freed: it recovers
 * and the WAL (bounded at 1 MiB) leaves the freed space free. */
Test(faults, a_full_disk_is_seen_and_a_freed_disk_stays_free, .fini = stop_on_tmpfs, .timeout = 120)
{
    start_on_tmpfs(wal_1mb);
    enum { PLAYERS = 20 };
    int fd[PLAYERS];
    login_all(fd, PLAYERS, 700);
    uint64_t seq = 0;
    for (int i = 0; i < 3; i++, e2e_sleep_us(100000))
        round_of(fd, PLAYERS, ++seq);
    char *body = NULL;
    cr_assert_eq(health(stack.admin_port[0], &body), 200, "%s", body);
    free(body);

    fill("spare", 3);
    fill("filler", 0);
    int64_t t0 = e2e_mono_us(), seen = -1, degraded = -1;
    while (e2e_mono_us() - t0 < 3000000 && (seen < 0 || degraded < 0)) {
        round_of(fd, PLAYERS, ++seq);   /* measured all along: the rows wait in memory */
        e2e_sleep_us(100000);
        if (seen < 0 && health(stack.admin_port[0], NULL) == 503)
            seen = e2e_mono_us() - t0;
        char *g = NULL;
        if (degraded < 0 && health(stack.metrics_port[0], &g) == 200 && strstr(g, "\"degraded\""))
            degraded = e2e_mono_us() - t0;
        free(g);
    }
    cr_assert_geq(seen, 0, "the scene's /healthz says 503 while rows cannot be written");
    cr_assert_geq(degraded, 0, "the gate's /healthz shows the shard degraded");
    cr_assert_eq(health(stack.admin_port[0], &body), 503);
    cr_assert(strstr(body, "store failing") && strstr(body, "full"), "the reason: %s", body);
    free(body);
    cr_assert(health(stack.metrics_port[0], &body) == 200 && strstr(body, "\"shards_degraded\":[0]"), "%s", body);
    free(body);
    cr_assert_eq(e2e_metric(stack.admin_port[0], "ticksync_scene_store_failing"), 1);
    cr_assert_eq(e2e_metric(stack.metrics_port[0], "ticksync_gate_shards_degraded"), 1);
    cr_assert(e2e_file_contains(stack.scene_log[0], "event=store_write_failed"));

    unfill("spare");   /* 3 MiB freed */
    int64_t t1 = e2e_mono_us(), recovered = -1;
    while (recovered < 0 && e2e_mono_us() - t1 < 3000000) {
        round_of(fd, PLAYERS, ++seq);
        e2e_sleep_us(100000);
        if (health(stack.admin_port[0], NULL) == 200)
            recovered = e2e_mono_us() - t1;
    }
    cr_assert_geq(recovered, 0, "healthy again once the disk has room");
    long long freed = free_bytes();
    for (int i = 0; i < 30; i++, e2e_sleep_us(100000))   /* 3 s more of exchanges */
        round_of(fd, PLAYERS, ++seq);
    long long left = free_bytes();
    char wal[128];
    struct stat st;
    snprintf(wal, sizeof wal, "%s-wal", stack.db[0]);
    long long wal_bytes = stat(wal, &st) == 0 ? (long long) st.st_size : -1;
    cr_assert_geq(left, 3LL << 19, "the WAL (bound 1 MiB) left at least 1.5 of the 3 MiB freed: %lld free", left);
    cr_assert_eq(e2e_db_value(stack.db[0], 700, "samples"), (int64_t) seq, "every exchange is in the row");

    fprintf(stderr,
            "faults: disk full: scene /healthz 503 after %.2f s, gate degraded after %.2f s, measuring all along; "
            "3 MiB freed: recovered in %.2f s, %.2f MiB free then, %.2f MiB after 3 s more (WAL %.2f MiB, bound 1)\n",
            seen / 1e6, degraded / 1e6, recovered / 1e6, freed / 1048576.0, left / 1048576.0, wal_bytes / 1048576.0);
    for (int p = 0; p < PLAYERS; p++)
        close(fd[p]);
}

/* SIGTERM while the disk is full: the scene retries its last flush for
 * 5 s, then exits 3 and logs the rows it loses (it used to exit 0 at once,
 * saying only "stop"). */
Test(faults, sigterm_on_a_full_disk_exits_3_and_tells_the_rows_lost, .fini = stop_on_tmpfs, .timeout = 120)
{
    start_on_tmpfs(NULL);
    enum { PLAYERS = 10 };
    int fd[PLAYERS];
    login_all(fd, PLAYERS, 900);
    uint64_t seq = 0;
    round_of(fd, PLAYERS, ++seq);
    e2e_sleep_us(300000);
    fill("filler", 0);
    for (int i = 0; i < 30 && health(stack.admin_port[0], NULL) != 503; i++, e2e_sleep_us(100000))
        round_of(fd, PLAYERS, ++seq);
    cr_assert_eq(health(stack.admin_port[0], NULL), 503, "the store fails on the full disk");
    int64_t t0 = e2e_mono_us();
    kill(stack.scene[0], SIGTERM);
    int status = 0;
    cr_assert_eq(waitpid(stack.scene[0], &status, 0), stack.scene[0]);
    stack.scene[0] = 0;
    int64_t took = e2e_mono_us() - t0;
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 3, "a stop that loses rows exits 3, not %d", status);
    cr_assert(e2e_file_contains(stack.scene_log[0], "event=store_rows_lost rows="), "and says how many");
    cr_assert(e2e_file_contains(stack.scene_log[0], "event=stop status=3 reason=rows_lost"));
    cr_assert_geq(took, 4500000, "it retried before giving up");
    fprintf(stderr, "faults: SIGTERM on a full disk: exit 3 after %.1f s of retries, the rows lost logged\n",
            took / 1e6);
    for (int p = 0; p < PLAYERS; p++)
        close(fd[p]);
}

/* ---- a store file that is not one, a folder that cannot be written ------------- */

/* Runs the scene on db and returns its exit status, its output in *out. */
static int scene_on(const char *db, char **out)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s --db %s --bind tcp://127.0.0.1:%d --admin 127.0.0.1:%d 2>&1", TS_SCENE_BIN, db,
             stack.scene_port[0], stack.admin_port[0]);
    return e2e_run(cmd, out);
}

static void one_line_naming(const char *out, const char *cause)
{
    cr_assert(strstr(out, cause), "names the cause '%s': %s", cause, out);
    cr_assert(strchr(out, '\n') == out + strlen(out) - 1, "in one line: %s", out);
}

/* A corrupt file and a file of another kind are refused with one line
 * saying so (exit 1, nothing written to them); a zero-length file is an
 * empty database, which the scene makes its store and serves from. */
Test(faults, a_store_file_that_is_not_one_is_refused_in_one_line, .fini = stop, .timeout = 60)
{
    e2e_start(&stack, false, NULL);
    mkdir(stack.dir, 0755);   /* a stack with no scene has not made it */
    char path[128], cmd[256], *out = NULL;
    snprintf(path, sizeof path, "%s/corrupt.db", stack.dir);
    snprintf(cmd, sizeof cmd, "head -c 65536 /dev/urandom > %s", path);
    cr_assert_eq(e2e_run(cmd, NULL), 0);
    cr_assert_eq(scene_on(path, &out), 1);
    one_line_naming(out, "file is not a database");
    free(out);
    snprintf(path, sizeof path, "%s/foreign.db", stack.dir);
    snprintf(cmd, sizeof cmd, "printf 'player_id,rtt\\n1,20\\n' > %s", path);
    cr_assert_eq(e2e_run(cmd, NULL), 0);
    cr_assert_eq(scene_on(path, &out), 1);
    one_line_naming(out, "file is not a database");
    free(out);
    snprintf(cmd, sizeof cmd, "cat %s", path);
    cr_assert_eq(e2e_run(cmd, &out), 0);
    cr_assert_str_eq(out, "player_id,rtt\n1,20\n", "the foreign file is left as it was");
    free(out);

    FILE *empty = fopen(stack.db[0], "w");   /* zero bytes, where the stack's scene keeps its store */
    cr_assert_not_null(empty);
    fclose(empty);
    e2e_start_scene(&stack, 0);
    int fd = e2e_login(stack.port[0], 77);
    uint64_t seq = 0;
    for (int i = 0; i < 20 && !try_exchange(fd, ++seq); i++)   /* the gate finds the shard within a second */
        e2e_sleep_us(100000);
    e2e_sleep_us(300000);
    cr_assert_eq(e2e_db_value(stack.db[0], 77, "samples"), 1, "a zero-length file became the store");
    close(fd);
    fprintf(stderr, "faults: corrupt and foreign files refused in one line (exit 1); a zero-length file became the store\n");
}

/* A read-only mount under the store's path: the scene exits 1 with one
 * line naming the folder and the system's reason (it used to say only
 * "unable to open database file"). */
Test(faults, a_read_only_folder_is_named_with_its_reason, .fini = stop, .timeout = 60)
{
    e2e_start(&stack, false, NULL);
    mkdir(stack.dir, 0755);
    char ro[128], db[160], *out = NULL;
    snprintf(ro, sizeof ro, "%s/ro", stack.dir);
    mkdir(ro, 0755);
    cr_assert_eq(mount("tmpfs", ro, "tmpfs", MS_RDONLY, "size=1m"), 0, "mount a read-only tmpfs (as root)");
    snprintf(db, sizeof db, "%s/scene.db", ro);
    int rc = scene_on(db, &out);
    umount2(ro, MNT_DETACH);
    cr_assert_eq(rc, 1);
    one_line_naming(out, "Read-only file system");
    cr_assert(strstr(out, ro), "names the folder: %s", out);
    fprintf(stderr, "faults: read-only folder: %s", out);
    free(out);
}

/* ---- a scene down ------------------------------------------------------------------ */

/* The scene stopped for 5 s under ten players syncing twice a second:
 * every SYNC is still answered by the gate (its ACK gets UNAVAILABLE: not
 * measured), and measurements resume within 2 s of the scene's return.
 * (test_e2e_client holds the library's clock through a 20 s outage.) */
Test(faults, a_scene_down_stops_no_clock_and_measuring_resumes_within_2_s, .fini = stop, .timeout = 60)
{
    e2e_start(&stack, true, NULL);
    enum { PLAYERS = 10 };
    int fd[PLAYERS];
    login_all(fd, PLAYERS, 1100);
    uint64_t seq = 0;
    round_of(fd, PLAYERS, ++seq);
    cr_assert_eq(e2e_term(stack.scene[0]), 0);
    stack.scene[0] = 0;
    e2e_sleep_us(1000000);   /* the gate has seen it go (800 ms without a PONG) */
    int answered = 0;
    for (int64_t t0 = e2e_mono_us(); e2e_mono_us() - t0 < 5000000; e2e_sleep_us(500000)) {
        ++seq;
        for (int p = 0; p < PLAYERS; p++, answered++)
            e2e_sync_unmeasured(fd[p], seq);   /* SYNC_REPLY, then UNAVAILABLE for the ACK */
    }
    e2e_start_scene(&stack, 0);
    int64_t t1 = e2e_mono_us(), resumed = -1;
    while (resumed < 0 && e2e_mono_us() - t1 < 2000000) {
        bool all = true;
        ++seq;
        for (int p = 0; p < PLAYERS; p++)
            all = try_exchange(fd[p], seq) && all;
        if (all)
            resumed = e2e_mono_us() - t1;
        else
            e2e_sleep_us(100000);
    }
    cr_assert_geq(resumed, 0, "every player measured again within 2 s of the scene's return");
    fprintf(stderr, "faults: scene down 5 s: %d SYNCs answered by the gate, 0 refused; every player measured "
            "again %.2f s after the scene's start\n", answered, resumed / 1e6);
    for (int p = 0; p < PLAYERS; p++)
        close(fd[p]);
}
