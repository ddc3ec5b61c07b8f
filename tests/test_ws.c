/* tests/test_ws.c - gate/ws: the handshake's answers (101 with RFC 6455's
 * own example key, 400, 426, 403), messages whole, split and fragmented,
 * and RFC 6455's answer to each bad frame, with the fault it is counted
 * under. Frames are built here byte by byte, as a hostile client would. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "ws.h"

#define KEY "dGhlIHNhbXBsZSBub25jZQ=="   /* RFC 6455 section 1.3 */

static char   wrote[65536];   /* everything written, in order */
static size_t wrote_len;
static int    writes;
static uint8_t got[8][4096];  /* messages delivered */
static size_t  got_len[8];
static int     ngot;

static int capture(void *arg, const uint8_t *bytes, size_t len)
{
    (void) arg;
    cr_assert_leq(wrote_len + len, sizeof wrote);
    memcpy(wrote + wrote_len, bytes, len);
    wrote_len += len;
    writes++;
    return 0;
}

static void on_message(void *arg, const uint8_t *body, size_t len)
{
    (void) arg;
    cr_assert_lt(ngot, 8);
    memcpy(got[ngot], body, len);
    got_len[ngot++] = len;
}

static gate_ws_t *ws;

static void setup(void)
{
    wrote_len = 0;
    writes = ngot = 0;
    gate_ws_io_t io = { .write = capture };
    ws = gate_ws_new("https://game.example, http://127.0.0.1:8080", 1024, &io);
    cr_assert_not_null(ws);
}

static void teardown(void)
{
    gate_ws_destroy(&ws);
    cr_assert_null(ws);
}

static int feed(const void *bytes, size_t len)
{
    return gate_ws_feed(ws, bytes, len, on_message, NULL);
}

static int feed_str(const char *s) { return feed(s, strlen(s)); }

static const char request[] = "GET /ticksync HTTP/1.1\r\nHost: game.example\r\nUpgrade: websocket\r\n"
                              "Connection: keep-alive, Upgrade\r\nSec-WebSocket-Key: " KEY "\r\n"
                              "Origin: https://game.example\r\nSec-WebSocket-Version: 13\r\n\r\n";

static void open_ws(void)
{
    cr_assert_eq(feed_str(request), 0);
    cr_assert(gate_ws_open(ws));
    wrote_len = 0;
    writes = 0;
}

/* A client frame: masked unless told, with a payload of len bytes. */
static size_t frame(uint8_t *out, bool fin, int opcode, const void *payload, size_t len, bool masked)
{
    static const uint8_t mask[4] = { 0x37, 0xfa, 0x21, 0x3d };
    size_t n = 0;
    out[n++] = (uint8_t) ((fin ? 0x80 : 0) | opcode);
    uint8_t m = masked ? 0x80 : 0;
    if (len < 126) {
        out[n++] = (uint8_t) (m | len);
    } else {
        out[n++] = m | 126;
        out[n++] = (uint8_t) (len >> 8);
        out[n++] = (uint8_t) len;
    }
    if (masked) {
        memcpy(out + n, mask, 4);
        n += 4;
    }
    for (size_t i = 0; i < len; i++)
        out[n + i] = (uint8_t) (((const uint8_t *) payload)[i] ^ (masked ? mask[i % 4] : 0));
    return n + len;
}

/* The close code of the server frame that ends what was written. */
static int close_code_written(void)
{
    cr_assert_geq(wrote_len, 4);
    const uint8_t *f = (const uint8_t *) wrote + wrote_len - 4;
    cr_assert_eq(f[0], 0x88, "a Close frame, FIN set");
    cr_assert_eq(f[1], 2, "unmasked, a 2-byte code");
    return f[2] << 8 | f[3];
}

TestSuite(ws, .init = setup, .fini = teardown);

Test(ws, answers_rfc_6455s_example_key_with_its_accept)
{
    cr_assert_eq(feed_str(request), 0);
    wrote[wrote_len] = '\0';
    cr_assert(strncmp(wrote, "HTTP/1.1 101 Switching Protocols\r\n", 34) == 0, "%s", wrote);
    cr_assert_not_null(strstr(wrote, "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"), "%s", wrote);
    cr_assert_not_null(strstr(wrote, "Upgrade: websocket\r\n"));
    cr_assert_eq(writes, 1);
    cr_assert(gate_ws_open(ws));
}

Test(ws, takes_the_request_a_byte_at_a_time)
{
    for (size_t i = 0; i + 1 < sizeof request; i++) {
        cr_assert_eq(feed(request + i, 1), 0);
        cr_assert_eq(gate_ws_open(ws), i + 2 == sizeof request);
    }
    cr_assert_not_null(strstr(wrote, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="));
}

Test(ws, frames_that_follow_the_request_in_one_read_are_read)
{
    uint8_t buf[1024];
    size_t n = strlen(request);
    memcpy(buf, request, n);
    n += frame(buf + n, true, 2, "\x93\x05\x01\x02", 4, true);
    cr_assert_eq(feed(buf, n), 0);
    cr_assert_eq(ngot, 1);
    cr_assert_eq(got_len[0], 4);
    cr_assert(memcmp(got[0], "\x93\x05\x01\x02", 4) == 0);
}

static void expect_refused(const char *req, const char *status, gate_ws_fault_t fault)
{
    cr_assert_eq(feed_str(req), 1);
    wrote[wrote_len] = '\0';
    cr_assert(strncmp(wrote, status, strlen(status)) == 0, "got %s", wrote);
    cr_assert_eq(gate_ws_fault(ws), fault, "%s", gate_ws_fault_name(gate_ws_fault(ws)));
    cr_assert_not(gate_ws_open(ws));
    cr_assert_eq(feed_str("more"), 1, "stays closed");
}

Test(ws, refuses_what_is_not_a_websocket_opening)
{
    expect_refused("GET / HTTP/1.1\r\nHost: x\r\n\r\n", "HTTP/1.1 400 ", GATE_WS_BAD_HANDSHAKE);
}

Test(ws, refuses_a_post)
{
    expect_refused("POST / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                   "Sec-WebSocket-Key: " KEY "\r\nSec-WebSocket-Version: 13\r\nContent-Length: 0\r\n\r\n",
                   "HTTP/1.1 400 ", GATE_WS_BAD_HANDSHAKE);
}

Test(ws, refuses_a_key_that_is_not_16_bytes)
{
    expect_refused("GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                   "Sec-WebSocket-Key: c2hvcnQ=\r\nSec-WebSocket-Version: 13\r\n\r\n",
                   "HTTP/1.1 400 ", GATE_WS_BAD_HANDSHAKE);
}

Test(ws, refuses_binary_garbage)
{
    expect_refused("\x16\x03\x01\x02\x05\x01\xfc\x03\x03\r\n\r\n", "HTTP/1.1 400 ", GATE_WS_BAD_HANDSHAKE);
}

Test(ws, answers_another_version_426_naming_13)
{
    expect_refused("GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                   "Sec-WebSocket-Key: " KEY "\r\nSec-WebSocket-Version: 8\r\n\r\n",
                   "HTTP/1.1 426 ", GATE_WS_BAD_HANDSHAKE);
    cr_assert_not_null(strstr(wrote, "Sec-WebSocket-Version: 13\r\n"));
}

Test(ws, refuses_an_origin_not_listed_403)
{
    expect_refused("GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                   "Sec-WebSocket-Key: " KEY "\r\nOrigin: https://evil.example\r\nSec-WebSocket-Version: 13\r\n\r\n",
                   "HTTP/1.1 403 ", GATE_WS_ORIGIN);
}

Test(ws, takes_the_second_origin_listed_and_a_request_without_origin)
{
    cr_assert_eq(feed_str("GET / HTTP/1.1\r\nHost: x\r\nUpgrade: WebSocket\r\nConnection: upgrade\r\n"
                          "Sec-WebSocket-Key: " KEY "\r\nOrigin: http://127.0.0.1:8080\r\n"
                          "Sec-WebSocket-Version: 13\r\n\r\n"), 0);
    cr_assert(gate_ws_open(ws));
    gate_ws_destroy(&ws);
    setup();
    cr_assert_eq(feed_str("GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                          "Sec-WebSocket-Key: " KEY "\r\nSec-WebSocket-Version: 13\r\n\r\n"), 0);
    cr_assert(gate_ws_open(ws), "no Origin: not a browser");
}

Test(ws, any_origin_when_none_are_listed)
{
    gate_ws_destroy(&ws);
    gate_ws_io_t io = { .write = capture };
    ws = gate_ws_new("*", 1024, &io);
    cr_assert_eq(feed_str("GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                          "Sec-WebSocket-Key: " KEY "\r\nOrigin: https://anywhere.example\r\n"
                          "Sec-WebSocket-Version: 13\r\n\r\n"), 0);
    cr_assert(gate_ws_open(ws));
}

Test(ws, refuses_a_request_over_its_cap)
{
    char big[GATE_WS_REQUEST_MAX + 64];
    int n = snprintf(big, sizeof big, "GET / HTTP/1.1\r\nX-Pad: ");
    memset(big + n, 'a', sizeof big - (size_t) n - 1);
    big[sizeof big - 1] = '\0';
    expect_refused(big, "HTTP/1.1 400 ", GATE_WS_BAD_HANDSHAKE);
}

Test(ws, delivers_messages_whole_split_and_fragmented)
{
    open_ws();
    uint8_t buf[4096];
    size_t n = frame(buf, true, 2, "one", 3, true);
    n += frame(buf + n, true, 2, "two!", 4, true);
    cr_assert_eq(feed(buf, n), 0);
    cr_assert_eq(ngot, 2);
    cr_assert(got_len[0] == 3 && memcmp(got[0], "one", 3) == 0);
    cr_assert(got_len[1] == 4 && memcmp(got[1], "two!", 4) == 0);
    /* split across reads, inside the header and inside the payload */
    n = frame(buf, true, 2, "three", 5, true);
    cr_assert_eq(feed(buf, 1), 0);
    cr_assert_eq(feed(buf + 1, 4), 0);
    cr_assert_eq(ngot, 2);
    cr_assert_eq(feed(buf + 5, n - 5), 0);
    cr_assert_eq(ngot, 3);
    /* three frames, a ping between them */
    n = frame(buf, false, 2, "fo", 2, true);
    n += frame(buf + n, false, 0, "u", 1, true);
    n += frame(buf + n, true, 9, "hi", 2, true);
    n += frame(buf + n, true, 0, "r", 1, true);
    cr_assert_eq(feed(buf, n), 0);
    cr_assert_eq(ngot, 4);
    cr_assert(got_len[3] == 4 && memcmp(got[3], "four", 4) == 0);
    cr_assert_eq(wrote_len, 4, "the pong");
    cr_assert(memcmp(wrote, "\x8a\x02hi", 4) == 0);
}

Test(ws, sends_one_unmasked_binary_frame_in_one_write)
{
    open_ws();
    uint8_t body[300];
    memset(body, 0xab, sizeof body);
    cr_assert_eq(gate_ws_send(ws, body, 5), 0);
    cr_assert_eq(writes, 1);
    cr_assert_eq(wrote_len, 7);
    cr_assert(memcmp(wrote, "\x82\x05\xab\xab\xab\xab\xab", 7) == 0);
    cr_assert_eq(gate_ws_send(ws, body, sizeof body), 0);
    cr_assert_eq(writes, 2);
    cr_assert_eq(wrote_len, 7 + 4 + sizeof body, "a 16-bit length");
    cr_assert(memcmp(wrote + 7, "\x82\x7e\x01\x2c", 4) == 0);
    cr_assert_eq((uint8_t) wrote[wrote_len - 1], 0xab, "the body ends what was written");
}

static void expect_closed(const uint8_t *bytes, size_t len, int code, gate_ws_fault_t fault)
{
    open_ws();
    cr_assert_eq(feed(bytes, len), 1);
    cr_assert_eq(close_code_written(), code);
    cr_assert_eq(gate_ws_fault(ws), fault, "%s", gate_ws_fault_name(gate_ws_fault(ws)));
    cr_assert_not(gate_ws_open(ws));
    cr_assert_eq(gate_ws_send(ws, (const uint8_t *) "x", 1), -1, "nothing after the Close");
    cr_assert_eq(ngot, 0);
}

Test(ws, closes_a_text_message_1003)
{
    uint8_t buf[64];
    expect_closed(buf, frame(buf, true, 1, "hello", 5, true), 1003, GATE_WS_TEXT);
}

Test(ws, closes_a_message_over_the_cap_1009)
{
    uint8_t buf[2048], big[1100] = { 0 };
    expect_closed(buf, frame(buf, true, 2, big, sizeof big, true), 1009, GATE_WS_TOO_LARGE);
}

Test(ws, closes_an_unmasked_frame_1002)
{
    uint8_t buf[64];
    expect_closed(buf, frame(buf, true, 2, "abc", 3, false), 1002, GATE_WS_PROTOCOL);
}

Test(ws, closes_a_reserved_opcode_1002)
{
    uint8_t buf[64];
    expect_closed(buf, frame(buf, true, 3, "abc", 3, true), 1002, GATE_WS_PROTOCOL);
}

Test(ws, closes_a_flood_of_empty_fragments_1008)
{
    uint8_t buf[1024];
    size_t n = frame(buf, false, 2, "", 0, true);
    for (int i = 0; i < GATE_WS_FRAGMENTS_MAX + 4; i++)
        n += frame(buf + n, false, 0, "", 0, true);
    expect_closed(buf, n, 1008, GATE_WS_FRAGMENTS);
}

Test(ws, answers_the_peers_close_and_is_done_without_fault)
{
    open_ws();
    uint8_t buf[64];
    cr_assert_eq(feed(buf, frame(buf, true, 8, "\x03\xe8", 2, true)), 1);
    cr_assert_eq(close_code_written(), 1000);
    cr_assert_eq(gate_ws_fault(ws), GATE_WS_OK);
}

Test(ws, close_sends_its_code_once)
{
    open_ws();
    cr_assert_eq(gate_ws_close(ws, 1001), 0);
    cr_assert_eq(close_code_written(), 1001);
    size_t len = wrote_len;
    cr_assert_eq(gate_ws_close(ws, 1000), 0);
    cr_assert_eq(wrote_len, len);
}

Test(ws, names_every_fault)
{
    for (int f = 0; f < GATE_WS_FAULTS; f++)
        cr_assert_str_neq(gate_ws_fault_name((gate_ws_fault_t) f), "unknown");
    cr_assert_str_eq(gate_ws_fault_name(GATE_WS_FAULTS), "unknown");
}
