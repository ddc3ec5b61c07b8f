/* tests/test_e2e_curve.c - CurveZMQ between gate and scene, with the real
 * processes and certificates made by `ticksync-admin keygen`: a listed gate
 * is served; a gate the scene does not list, and a gate without CurveZMQ,
 * never reach it (their players get UNAVAILABLE, /healthz says 503); bad
 * certificate settings stop the programs at start with one line. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "e2e.h"

static e2e_stack_t stack;
static char dir[64], scene_pub[96], scene_secret[96], gate_secret[96], other_secret[96], gates[96];
static const char *scene_flags[] = { "--curve-cert", scene_secret, "--curve-gates", gates, NULL };

static void keygen(const char *path)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "%s keygen %s >/dev/null", TS_ADMIN_BIN, path);
    cr_assert_eq(e2e_run(cmd, NULL), 0, "%s", cmd);
}

/* A scene certificate, a listed gate's, and an unlisted one's. */
static void certs(void)
{
    snprintf(dir, sizeof dir, "/tmp/ts-curve-%d", (int) getpid());
    snprintf(gates, sizeof gates, "%s/gates", dir);
    char cmd[512], path[160];
    snprintf(cmd, sizeof cmd, "rm -rf %s && mkdir -p %s", dir, gates);
    cr_assert_eq(e2e_run(cmd, NULL), 0);
    snprintf(scene_pub, sizeof scene_pub, "%s/scene", dir);
    snprintf(scene_secret, sizeof scene_secret, "%s/scene_secret", dir);
    keygen(scene_pub);
    snprintf(path, sizeof path, "%s/gate", dir);
    keygen(path);
    snprintf(gate_secret, sizeof gate_secret, "%s/gate_secret", dir);
    snprintf(cmd, sizeof cmd, "cp %s/gate %s/", dir, gates);   /* only the public half is listed */
    cr_assert_eq(e2e_run(cmd, NULL), 0);
    snprintf(path, sizeof path, "%s/other", dir);
    keygen(path);
    snprintf(other_secret, sizeof other_secret, "%s/other_secret", dir);
}

static void stop(void)
{
    e2e_stop(&stack);
    char cmd[96];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    e2e_run(cmd, NULL);
}

static void start_with(const char *const *gate_flags)
{
    certs();
    e2e_start_cluster(&stack, 1, 1, true, gate_flags, scene_flags);
}

/* Waits for the gate's view of the shard: /healthz 200 (up) or 503. */
static int health_after(int ms)
{
    e2e_sleep_us((int64_t) ms * 1000);
    return e2e_http_get(stack.metrics_port[0], "/healthz", NULL);
}

Test(e2e_curve, a_listed_gate_is_served_over_curvezmq, .fini = stop, .timeout = 60)
{
    static const char *gate_flags[] = { "--curve-scene-cert", scene_pub, "--curve-cert", gate_secret, NULL };
    start_with(gate_flags);
    int fd = e2e_login(stack.port[0], 42);
    for (uint64_t seq = 1; seq <= 3; seq++)
        cr_assert_geq(e2e_exchange(fd, seq, 2000, 2000, 0), 4000, "exchange %llu", (unsigned long long) seq);
    cr_assert_eq(health_after(0), 200);
    e2e_sleep_us(400000);
    cr_assert_eq(e2e_db_value(stack.db[0], 42, "samples"), 3, "stored by the scene");
    close(fd);
}

static void refused(void)
{
    int fd = e2e_login(stack.port[0], 43);
    e2e_sync_unmeasured(fd, 1);
    cr_assert_eq(health_after(1200), 503, "the shard never answers this gate");
    close(fd);
}

Test(e2e_curve, a_gate_the_scene_does_not_list_is_refused, .fini = stop, .timeout = 60)
{
    static const char *gate_flags[] = { "--curve-scene-cert", scene_pub, "--curve-cert", other_secret, NULL };
    start_with(gate_flags);
    refused();
}

Test(e2e_curve, a_gate_without_curvezmq_is_refused, .fini = stop, .timeout = 60)
{
    start_with(NULL);
    refused();
}

Test(e2e_curve, bad_certificate_settings_stop_at_start, .fini = stop, .timeout = 30)
{
    certs();
    char cmd[512], *out = NULL;
    snprintf(cmd, sizeof cmd, "%s --curve-cert %s/none --db %s/x.db 2>&1", TS_SCENE_BIN, dir, dir);
    cr_assert_eq(e2e_run(cmd, &out), 2, "scene, missing certificate: %s", out);
    cr_assert(strstr(out, "curve-cert"), "%s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "%s --curve-cert %s/gate --db %s/x.db 2>&1", TS_SCENE_BIN, gates, dir);
    cr_assert_eq(e2e_run(cmd, &out), 2, "scene, a public certificate only: %s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "%s --curve-scene-cert %s/none --listen 127.0.0.1:1 --metrics 127.0.0.1:1 2>&1",
             TS_GATE_BIN, dir);
    cr_assert_neq(e2e_run(cmd, &out), 0, "gate, missing certificate: %s", out);
    cr_assert(strstr(out, "CurveZMQ"), "%s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "%s --curve-scene-cert %s,%s --listen 127.0.0.1:1 --metrics 127.0.0.1:1 2>&1",
             TS_GATE_BIN, scene_pub, scene_pub);
    cr_assert_neq(e2e_run(cmd, &out), 0, "gate, two certificates for one scene: %s", out);
    free(out);
}
