/* tests/test_e2e_ws.c - the gate's WebSocket edge against the real gate and
 * scene: a session over WebSocket is the TCP session (WELCOME, exchanges
 * with the gate's stamps, SYNC_RESULTs, the player's row in SQLite, the
 * same ERRORs, tokens and rate limit, a login elsewhere replacing it, BYE
 * "shutdown" and a Close when the gate stops); and hostile WebSocket
 * clients (a bad handshake, a foreign Origin, a text message, a message
 * over the cap, an unmasked frame, a flood of fragments, garbage after the
 * handshake) each get RFC 6455's answer and a counted metric while a good
 * TCP client and a good WebSocket client beside them are untouched. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "e2e.h"
#include "token.h"

#define ORIGIN "http://127.0.0.1:8080"

static e2e_stack_t stack;
static const char *gate_flags[] = { "--ws-listen", NULL, "--ws-origins", ORIGIN ",https://game.example", NULL };

static void start(void)
{
    gate_flags[1] = e2e_ws_listen();
    e2e_start(&stack, true, gate_flags);
}

static void stop(void) { e2e_stop(&stack); }

static char secret_path[64];
static const char secret[] = "e2e-ws-secret";
static const char *secret_flags[] = { "--ws-listen", NULL, "--secret-file", secret_path, NULL };

static void start_secret(void)
{
    snprintf(secret_path, sizeof secret_path, "/tmp/ts-ws-secret-%d", (int) getpid());
    FILE *f = fopen(secret_path, "w");
    cr_assert_not_null(f);
    fprintf(f, "%s\n", secret);
    fclose(f);
    secret_flags[1] = e2e_ws_listen();
    e2e_start(&stack, true, secret_flags);
}

static void stop_secret(void)
{
    e2e_stop(&stack);
    unlink(secret_path);
}

static int64_t real_us(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (int64_t) tv.tv_sec * 1000000 + tv.tv_usec;
}

static int ws_open_ok(void)
{
    char status[1024];
    int fd = e2e_ws_open(e2e_ws_port(), ORIGIN, status, sizeof status);
    cr_assert(strncmp(status, "HTTP/1.1 101 ", 13) == 0, "%s", status);
    cr_assert_not_null(strstr(status, "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"), "%s", status);
    return fd;
}

/* HELLO in open mode and WELCOME, over WebSocket. */
static int ws_login(uint64_t player)
{
    int fd = ws_open_ok();
    e2e_ws_send(fd, "uuuun", (uint64_t) 1, (uint64_t) 1, (uint64_t) 1, player);
    msgpack_unpacked m;
    msgpack_unpacked_init(&m);
    cr_assert(e2e_ws_recv(fd, &m, 2000), "no WELCOME");
    cr_assert_eq(e2e_int(&m, 0), 2);
    cr_assert_eq(m.data.via.array.size, 7);
    cr_assert_eq(m.data.via.array.ptr[6].type, MSGPACK_OBJECT_NIL, "no udp_key for a browser");
    int64_t server_time = e2e_int(&m, 4);
    cr_assert_lt(llabs(server_time - real_us()), 100000);
    msgpack_unpacked_destroy(&m);
    return fd;
}

/* The next message is ERROR code (with seq, unless seq < 0). */
static void ws_expect_error(int fd, int64_t seq, int64_t code)
{
    msgpack_unpacked m;
    msgpack_unpacked_init(&m);
    cr_assert(e2e_ws_recv(fd, &m, 2000), "no ERROR %lld", (long long) code);
    cr_assert_eq(e2e_int(&m, 0), 32);
    if (seq >= 0)
        cr_assert_eq(e2e_int(&m, 1), seq);
    cr_assert_eq(e2e_int(&m, 2), code);
    msgpack_unpacked_destroy(&m);
}

/* The next message is BYE with reason, then the gate's Close (1000) and
 * the end of the connection. */
static void ws_expect_bye(int fd, const char *reason)
{
    msgpack_unpacked m;
    msgpack_unpacked_init(&m);
    cr_assert(e2e_ws_recv(fd, &m, 3000), "no BYE");
    cr_assert_eq(e2e_int(&m, 0), 127, "BYE");
    const msgpack_object *r = &m.data.via.array.ptr[2];
    cr_assert_eq(r->type, MSGPACK_OBJECT_STR);
    cr_assert(r->via.str.size == strlen(reason) && memcmp(r->via.str.ptr, reason, r->via.str.size) == 0,
              "BYE \"%.*s\", not \"%s\"", (int) r->via.str.size, r->via.str.ptr, reason);
    msgpack_unpacked_destroy(&m);
    cr_assert_eq(e2e_ws_close_code(fd, 3000), 1000);
    cr_assert(e2e_closed(fd, 3000));
}

/* One exchange over WebSocket; returns SYNC_RESULT's rtt. */
static int64_t ws_exchange(int fd, uint64_t seq)
{
    msgpack_unpacked m;
    msgpack_unpacked_init(&m);
    int64_t t1 = e2e_mono_us(), before = real_us();
    e2e_ws_send(fd, "uui", (uint64_t) 16, seq, t1);
    cr_assert(e2e_ws_recv(fd, &m, 2000));
    int64_t after = real_us();
    cr_assert_eq(e2e_int(&m, 0), 17, "SYNC_REPLY expected, got %lld", (long long) e2e_int(&m, 0));
    cr_assert_eq(e2e_int(&m, 1), (int64_t) seq);
    cr_assert_eq(e2e_int(&m, 2), t1);
    int64_t t2 = e2e_int(&m, 3), t3 = e2e_int(&m, 4);
    cr_assert(before <= t2 && t2 <= t3 && t3 <= after, "t2 %lld t3 %lld within [%lld, %lld]", (long long) t2,
              (long long) t3, (long long) before, (long long) after);
    int64_t t4 = e2e_mono_us();
    e2e_ws_send(fd, "uuiinn", (uint64_t) 18, seq, t4, t4);
    cr_assert(e2e_ws_recv(fd, &m, 2000));
    cr_assert_eq(e2e_int(&m, 0), 19);
    cr_assert_eq(e2e_int(&m, 1), (int64_t) seq);
    int64_t rtt = e2e_int(&m, 2);
    msgpack_unpacked_destroy(&m);
    return rtt;
}

Test(e2e_ws, a_session_over_websocket_is_the_tcp_session, .init = start, .fini = stop, .timeout = 60)
{
    int fd = ws_login(501);
    for (uint64_t seq = 1; seq <= 8; seq++) {
        int64_t rtt = ws_exchange(fd, seq);
        cr_assert(rtt > 0 && rtt < 50000, "rtt %lld", (long long) rtt);
    }
    int64_t samples = INT64_MIN;
    for (int i = 0; i < 50 && samples < 8; i++) {
        e2e_sleep_us(100000);
        samples = e2e_db_value(stack.db[0], 501, "samples");
    }
    cr_assert_eq(samples, 8, "the row in SQLite");
    cr_assert_eq(e2e_metric(stack.metrics_port[0], "ticksync_gate_ws_handshakes_total"), 1);
    cr_assert_eq(e2e_metric(stack.metrics_port[0], "ticksync_gate_ws_connections_accepted_total"), 1);
    e2e_ws_send(fd, "uus", (uint64_t) 127, (uint64_t) 0, "");   /* BYE */
    cr_assert_eq(e2e_ws_close_code(fd, 2000), 1000);
    cr_assert(e2e_closed(fd, 2000));
    close(fd);
}

Test(e2e_ws, errors_are_the_tcp_paths, .init = start, .fini = stop, .timeout = 60)
{
    /* before HELLO: NOT_AUTHENTICATED, which closes */
    int fd = ws_open_ok();
    e2e_ws_send(fd, "uui", (uint64_t) 16, (uint64_t) 3, (int64_t) 1);
    ws_expect_error(fd, -1, 5);   /* NOT_AUTHENTICATED */
    cr_assert_eq(e2e_ws_close_code(fd, 2000), 1000);
    close(fd);
    /* a message that is not one: BAD_MESSAGE, and the session goes on; an empty one: BAD_FRAME, which closes */
    fd = ws_login(502);
    e2e_ws_send(fd, "uus", (uint64_t) 16, (uint64_t) 4, "not a time");
    ws_expect_error(fd, 4, 2);    /* BAD_MESSAGE */
    cr_assert_gt(ws_exchange(fd, 5), 0);
    e2e_ws_frame(fd, true, 2, "", 0, true);
    ws_expect_error(fd, 0, 1);    /* BAD_FRAME */
    cr_assert_eq(e2e_ws_close_code(fd, 2000), 1000);
    close(fd);
}

Test(e2e_ws, a_login_over_tcp_replaces_the_websocket_session, .init = start, .fini = stop, .timeout = 60)
{
    int ws = ws_login(503);
    cr_assert_gt(ws_exchange(ws, 1), 0);
    int tcp = e2e_login(stack.port[0], 503);
    ws_expect_bye(ws, "replaced");
    cr_assert_gt(e2e_exchange(tcp, 1, 0, 0, 0), 0);
    close(ws);
    close(tcp);
}

/* A raw request to the WebSocket port; the response's status line. */
static void expect_refused(const char *request, const char *status)
{
    int fd = e2e_connect(e2e_ws_port());
    e2e_send_raw(fd, request, strlen(request));
    char buf[512] = { 0 };
    cr_assert_gt(recv(fd, buf, sizeof buf - 1, 0), 0);
    cr_assert(strncmp(buf, status, strlen(status)) == 0, "got %s", buf);
    cr_assert(e2e_closed(fd, 2000));
    close(fd);
}

static void expect_close(void (*misbehave)(int fd), int code)
{
    int fd = ws_open_ok();
    misbehave(fd);
    cr_assert_eq(e2e_ws_close_code(fd, 2000), code);
    cr_assert(e2e_closed(fd, 2000));
    close(fd);
}

static void send_text(int fd) { e2e_ws_frame(fd, true, 1, "hello", 5, true); }
static void send_unmasked(int fd) { e2e_ws_frame(fd, true, 2, "\x93\x10\x01\x01", 4, false); }
static void send_garbage_frame(int fd) { e2e_ws_frame(fd, true, 0x0b, "??", 2, true); }

static void send_oversized(int fd)
{
    static uint8_t big[70000];
    e2e_ws_frame(fd, true, 2, big, sizeof big, true);
}

static void send_fragment_flood(int fd)
{
    e2e_ws_frame(fd, false, 2, "", 0, true);
    for (int i = 0; i < 1000; i++)
        e2e_ws_frame(fd, false, 0, "", 0, true);
}

Test(e2e_ws, hostile_websocket_clients_get_rfc_6455s_answers, .init = start, .fini = stop, .timeout = 60)
{
    int tcp = e2e_login(stack.port[0], 1);
    int ws = ws_login(2);
    cr_assert_gt(e2e_exchange(tcp, 1, 0, 0, 0), 0);
    cr_assert_gt(ws_exchange(ws, 1), 0);

    expect_refused("GET / HTTP/1.1\r\nHost: x\r\n\r\n", "HTTP/1.1 400 ");
    expect_refused("\x16\x03\x01\x02\x05\x01\xfc\x03\x03 garbage\r\n\r\n", "HTTP/1.1 400 ");
    expect_refused("GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                   "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 7\r\n\r\n",
                   "HTTP/1.1 426 ");
    char status[1024];
    int fd = e2e_ws_open(e2e_ws_port(), "https://evil.example", status, sizeof status);
    cr_assert(strncmp(status, "HTTP/1.1 403 ", 13) == 0, "%s", status);
    close(fd);
    expect_close(send_text, 1003);
    expect_close(send_oversized, 1009);
    expect_close(send_unmasked, 1002);
    expect_close(send_garbage_frame, 1002);
    expect_close(send_fragment_flood, 1008);

    int port = stack.metrics_port[0];
    cr_assert_eq(e2e_metric(port, "ticksync_gate_ws_refused_total{reason=\"bad_handshake\"}"), 3);
    cr_assert_eq(e2e_metric(port, "ticksync_gate_ws_refused_total{reason=\"origin\"}"), 1);
    cr_assert_eq(e2e_metric(port, "ticksync_gate_ws_refused_total{reason=\"text\"}"), 1);
    cr_assert_eq(e2e_metric(port, "ticksync_gate_ws_refused_total{reason=\"too_large\"}"), 1);
    cr_assert_eq(e2e_metric(port, "ticksync_gate_ws_refused_total{reason=\"protocol\"}"), 2);
    cr_assert_eq(e2e_metric(port, "ticksync_gate_ws_refused_total{reason=\"fragments\"}"), 1);

    /* the good clients, on both transports, never noticed */
    for (uint64_t seq = 2; seq <= 4; seq++) {
        cr_assert_gt(e2e_exchange(tcp, seq, 0, 0, 0), 0);
        cr_assert_gt(ws_exchange(ws, seq), 0);
    }
    close(tcp);
    close(ws);
    cr_assert_eq(e2e_term(stack.gate[0]), 0, "the gate exits cleanly");
    stack.gate[0] = 0;
}

Test(e2e_ws, tokens_and_the_rate_limit_are_the_tcp_paths, .init = start_secret, .fini = stop_secret, .timeout = 60)
{
    msgpack_unpacked m;
    msgpack_unpacked_init(&m);
    /* no token: UNAUTHORIZED, which closes */
    int fd = ws_open_ok();
    e2e_ws_send(fd, "uuuun", (uint64_t) 1, (uint64_t) 1, (uint64_t) 1, (uint64_t) 601);
    ws_expect_error(fd, -1, 4);   /* UNAUTHORIZED */
    cr_assert_eq(e2e_ws_close_code(fd, 2000), 1000);
    close(fd);
    /* a valid token: welcomed */
    uint8_t token[TS_TOKEN_LEN];
    ts_token_make((const uint8_t *) secret, strlen(secret), 602, (uint64_t) time(NULL) + 600, token);
    fd = ws_open_ok();
    e2e_ws_send(fd, "uuuub", (uint64_t) 1, (uint64_t) 1, (uint64_t) 1, (uint64_t) 602, token, sizeof token);
    cr_assert(e2e_ws_recv(fd, &m, 2000));
    cr_assert_eq(e2e_int(&m, 0), 2, "WELCOME");
    /* 40 SYNCs at once against 20 a second: some are RATE_LIMITED, and the session goes on */
    for (uint64_t seq = 1; seq <= 40; seq++)
        e2e_ws_send(fd, "uui", (uint64_t) 16, seq, (int64_t) seq);
    int replies = 0, limited = 0;
    for (int i = 0; i < 40; i++) {
        cr_assert(e2e_ws_recv(fd, &m, 2000));
        if (e2e_int(&m, 0) == 17)
            replies++;
        else if (e2e_int(&m, 0) == 32 && e2e_int(&m, 2) == 6)
            limited++;
    }
    cr_assert(replies > 0 && limited > 0 && replies + limited == 40, "%d replies, %d limited", replies, limited);
    e2e_sleep_us(1100000);
    cr_assert_gt(ws_exchange(fd, 100), 0);
    msgpack_unpacked_destroy(&m);
    close(fd);
}

Test(e2e_ws, a_gate_shutting_down_says_bye_and_closes, .init = start, .fini = stop, .timeout = 60)
{
    int ws = ws_login(504);
    cr_assert_gt(ws_exchange(ws, 1), 0);
    kill(stack.gate[0], SIGTERM);
    ws_expect_bye(ws, "shutdown");
    close(ws);
    int status;
    cr_assert_eq(waitpid(stack.gate[0], &status, 0), stack.gate[0]);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the gate exits cleanly");
    stack.gate[0] = 0;
}
