/* tests/test_e2e_udp.c - libticksync against the real gate and scene: the
 * socket client syncs over TCP, moves to UDP once synced, reconnects after
 * a gate restart, and a crowd of them under load after the gate is
 * killed; and every datagram the gate must drop silently (short,
 * unknown session, wrong tag, other host, undecodable, wrong type) is
 * dropped, counted, and leaves a client alongside untouched. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "e2e.h"
#include "ticksync.h"

static e2e_stack_t stack;

static void start(void) { e2e_start(&stack, true, NULL); }
static void stop(void) { e2e_stop(&stack); }

static long long gate_metric(const char *series)
{
    return e2e_metric(stack.metrics_port[0], series);
}

static ticksync_client_t *client_for(uint64_t player, bool udp)
{
    char server[32], err[TICKSYNC_ERR_MAX];
    snprintf(server, sizeof server, "127.0.0.1:%d", stack.port[0]);
    ticksync_client_options_t o = { .server = server, .player_id = player, .udp = udp };
    ticksync_client_t *c = ticksync_client_new(&o, err);
    cr_assert_not_null(c, "%s", err);
    return c;
}

static void run_for(ticksync_client_t *c, int ms)
{
    int64_t end = ticksync_local_us() + (int64_t) ms * 1000;
    while (ticksync_local_us() < end)
        cr_assert_eq(ticksync_client_run(c, 20), 0);
}

Test(e2e_udp, client_syncs_over_tcp_then_udp, .init = start, .fini = stop, .timeout = 60)
{
    ticksync_client_t *c = client_for(501, true);
    run_for(c, 1500);
    ticksync_t *clock = ticksync_client_clock(c);
    cr_assert(ticksync_synced(clock));
    cr_assert_not(ticksync_needs_reliable(clock));
    cr_assert(ticksync_session_udp_ready(ticksync_client_session(c)));
    long long udp = gate_metric("ticksync_gate_udp_datagrams_total");
    cr_assert_gt(udp, 0, "exchanges moved to UDP");
    /* server time from the library against this host's real clock: loopback, so within a few ms */
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    int64_t real = (int64_t) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
    int64_t est = ticksync_now(clock, ticksync_local_us());
    cr_assert_lt(llabs(est - real), 5000, "server time off by %lld us", (long long) (est - real));
    cr_assert_lt(ticksync_error_bound(clock, ticksync_local_us()), 5000);
    int64_t rtt, srtt;
    ticksync_session_server_rtt(ticksync_client_session(c), &rtt, &srtt, NULL);
    cr_assert_gt(srtt, 0, "SYNC_RESULTs arrive over UDP too");
    e2e_sleep_us(300000);
    cr_assert_geq(e2e_db_value(stack.db[0], 501, "samples"), 6);
    ticksync_client_destroy(&c);
    cr_assert_null(c);
}

Test(e2e_udp, client_reconnects_after_a_gate_restart, .init = start, .fini = stop, .timeout = 60)
{
    ticksync_client_t *c = client_for(502, true);
    run_for(c, 800);
    cr_assert_eq(ticksync_client_connects(c), 1);
    int64_t before = ticksync_now(ticksync_client_clock(c), ticksync_local_us());
    cr_assert_eq(e2e_term(stack.gate[0]), 0);
    e2e_start_gate(&stack, 0);
    run_for(c, 3000);
    cr_assert_geq(ticksync_client_connects(c), 2, "reconnected");
    cr_assert_eq(ticksync_session_state(ticksync_client_session(c)), TICKSYNC_SESSION_WELCOMED);
    cr_assert_geq(ticksync_now(ticksync_client_clock(c), ticksync_local_us()), before, "time went on, not back");
    ticksync_client_destroy(&c);
}

#define CROWD 100

/* Runs every client of the crowd for ms, checking that none of their clocks
 * ever goes back. */
static void run_crowd(ticksync_client_t **c, int64_t *last, int ms)
{
    int64_t end = ticksync_local_us() + (int64_t) ms * 1000;
    while (ticksync_local_us() < end) {
        for (int i = 0; i < CROWD; i++) {
            cr_assert_eq(ticksync_client_run(c[i], 0), 0);
            int64_t now = ticksync_now(ticksync_client_clock(c[i]), ticksync_local_us());
            cr_assert_geq(now, last[i], "client %d went back %lld us", i, (long long) (last[i] - now));
            last[i] = now;
        }
        e2e_sleep_us(1000);
    }
}

Test(e2e_udp, a_crowd_under_load_reconnects_after_the_gate_is_killed, .init = start, .fini = stop, .timeout = 90)
{
    ticksync_config_t fast;
    ticksync_config_default(&fast);
    fast.interval_us = 50000;   /* 100 clients x 20 exchanges a second */
    ticksync_client_t *c[CROWD];
    int64_t last[CROWD] = { 0 };
    char server[32], err[TICKSYNC_ERR_MAX];
    snprintf(server, sizeof server, "127.0.0.1:%d", stack.port[0]);
    for (int i = 0; i < CROWD; i++) {
        ticksync_client_options_t o = { .server = server, .player_id = 1000 + (uint64_t) i, .udp = i % 2, .clock = &fast };
        c[i] = ticksync_client_new(&o, err);
        cr_assert_not_null(c[i], "%s", err);
    }
    run_crowd(c, last, 1500);
    e2e_sleep_us(300000);
    int64_t before = e2e_db_value(stack.db[0], 1000, "samples");
    cr_assert_gt(before, 0);
    kill(stack.gate[0], SIGKILL);   /* a crash: no BYE, connections reset */
    waitpid(stack.gate[0], NULL, 0);
    stack.gate[0] = 0;
    run_crowd(c, last, 300);
    e2e_start_gate(&stack, 0);
    run_crowd(c, last, 3500);
    for (int i = 0; i < CROWD; i++) {
        cr_assert_geq(ticksync_client_connects(c[i]), 2, "client %d reconnected", i);
        cr_assert_eq(ticksync_session_state(ticksync_client_session(c[i])), TICKSYNC_SESSION_WELCOMED, "client %d", i);
        cr_assert(ticksync_synced(ticksync_client_clock(c[i])), "client %d", i);
    }
    e2e_sleep_us(300000);
    cr_assert_gt(e2e_db_value(stack.db[0], 1000, "samples"), before, "the scene kept counting");
    for (int i = 0; i < CROWD; i++)
        ticksync_client_destroy(&c[i]);
}

/* A UDP socket bound to a loopback address (127.0.0.x works without setup). */
static int udp_from(const char *ip)
{
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET };
    inet_pton(AF_INET, ip, &a.sin_addr);
    cr_assert_eq(bind(fd, (struct sockaddr *) &a, sizeof a), 0);
    struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons((uint16_t) stack.port[0]) };
    inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
    cr_assert_eq(connect(fd, (struct sockaddr *) &to, sizeof to), 0);
    return fd;
}

static bool answered(int fd, int ms)
{
    struct pollfd p = { .fd = fd, .events = POLLIN };
    return poll(&p, 1, ms) > 0;
}

/* Logs a session in over raw TCP and hands back its session (with udp_key). */
static ticksync_session_t *raw_login(uint64_t player, int *tcp)
{
    ticksync_session_t *s = ticksync_session_new(player, NULL, 0, NULL);
    uint8_t buf[4096];
    *tcp = e2e_connect(stack.port[0]);
    size_t n = ticksync_session_hello(s, buf + 4, sizeof buf - 4);
    buf[0] = buf[1] = 0;
    buf[2] = (uint8_t) (n >> 8);
    buf[3] = (uint8_t) n;
    e2e_send_raw(*tcp, buf, n + 4);
    uint8_t hdr[4];
    cr_assert_eq(read(*tcp, hdr, 4), 4);
    size_t len = (size_t) hdr[2] << 8 | hdr[3];
    cr_assert_eq(read(*tcp, buf, len), (ssize_t) len);
    ticksync_session_receive(s, buf, len, ticksync_local_us(), NULL, 0);
    cr_assert(ticksync_session_udp_ready(s));
    return s;
}

Test(e2e_udp, unauthenticated_datagrams_are_dropped_silently_and_counted, .init = start, .fini = stop, .timeout = 60)
{
    ticksync_client_t *good = client_for(503, true);
    run_for(good, 1000);
    int64_t srtt_before;
    ticksync_session_server_rtt(ticksync_client_session(good), NULL, &srtt_before, NULL);

    int tcp;
    ticksync_session_t *s = raw_login(504, &tcp);
    uint8_t sync[64], dgram[1300];
    size_t sn = ticksync_session_sync(s, ticksync_local_us(), sync, sizeof sync);
    size_t dn = ticksync_session_udp_wrap(s, sync, sn, dgram, sizeof dgram);
    int fd = udp_from("127.0.0.1");

    /* the authentic one is answered: SYNC_REPLY over UDP */
    send(fd, dgram, dn, 0);
    cr_assert(answered(fd, 1000), "an authentic SYNC is answered");
    uint8_t in[1300];
    ssize_t got = recv(fd, in, sizeof in, 0);
    const uint8_t *msg;
    cr_assert_gt(ticksync_session_udp_unwrap(s, in, (size_t) got, &msg), 0, "the reply is tagged under the key");

    struct { const char *series; uint8_t bytes[64]; size_t len; const char *from; } bad[6];
    memset(bad, 0, sizeof bad);
    bad[0].series = "ticksync_gate_udp_dropped_total{reason=\"short\"}";
    memcpy(bad[0].bytes, dgram, 10);
    bad[0].len = 10;
    bad[1].series = "ticksync_gate_udp_dropped_total{reason=\"session\"}";
    memcpy(bad[1].bytes, dgram, dn);
    bad[1].bytes[3] ^= 0x40;
    bad[1].len = dn;
    bad[2].series = "ticksync_gate_udp_dropped_total{reason=\"tag\"}";
    memcpy(bad[2].bytes, dgram, dn);
    bad[2].bytes[9] ^= 1;
    bad[2].len = dn;
    bad[3].series = "ticksync_gate_udp_dropped_total{reason=\"source\"}";
    memcpy(bad[3].bytes, dgram, dn);
    bad[3].len = dn;
    bad[3].from = "127.0.0.2";   /* right tag, another host than the TCP peer */
    uint8_t hello[64], garbage[] = { 0xc1 };
    size_t hn = ticksync_session_hello(s, hello, sizeof hello);
    bad[4].series = "ticksync_gate_udp_dropped_total{reason=\"type\"}";
    bad[4].len = ticksync_session_udp_wrap(s, hello, hn, bad[4].bytes, sizeof bad[4].bytes);
    bad[5].series = "ticksync_gate_udp_dropped_total{reason=\"message\"}";
    bad[5].len = ticksync_session_udp_wrap(s, garbage, 1, bad[5].bytes, sizeof bad[5].bytes);
    for (size_t i = 0; i < 6; i++) {
        long long before = gate_metric(bad[i].series);
        int from = bad[i].from ? udp_from(bad[i].from) : fd;
        for (int k = 0; k < 3; k++)
            send(from, bad[i].bytes, bad[i].len, 0);
        cr_assert_not(answered(from, 300), "case %zu gets no answer", i);
        cr_assert_eq(gate_metric(bad[i].series), before + 3, "case %zu counted", i);
        if (from != fd)
            close(from);
    }
    /* the TCP session of the raw client and the well-behaved client carry on */
    cr_assert_not(e2e_closed(tcp, 100));
    run_for(good, 1500);
    int64_t srtt_after;
    ticksync_session_server_rtt(ticksync_client_session(good), NULL, &srtt_after, NULL);
    cr_assert_eq(ticksync_session_last_error(ticksync_client_session(good)), 0);
    cr_assert_lt(llabs(srtt_after - srtt_before), 2000, "latency unchanged: %lld -> %lld", (long long) srtt_before,
                 (long long) srtt_after);
    close(fd);
    close(tcp);
    ticksync_session_destroy(&s);
    ticksync_client_destroy(&good);
}
