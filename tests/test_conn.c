/* tests/test_conn.c - one gate stream over a socketpair, through each
 * transport: TCP frames and WebSocket messages in, messages out, a framing
 * error, the output cap, corking, SYNC_REPLYs stamped by the write that
 * carries them (t3, and the exchange's monotonic t6 - t3), closing with the
 * transport's last words, retiring, and the session it owns. */
#include <criterion/criterion.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "conn.h"
#include "frame.h"

static int peer;
static gate_conn_t *c;

static void open_conn(gate_transport_t transport)
{
    int sv[2];
    cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
    peer = sv[1];
    c = gate_conn_new(sv[0], 42, transport, NULL, 1024);
    cr_assert_not_null(c);
}

static void setup(void) { open_conn(GATE_TRANSPORT_TCP); }
static void setup_ws(void) { open_conn(GATE_TRANSPORT_WS); }

static void teardown(void)
{
    gate_conn_destroy(&c);
    cr_assert_null(c);
    close(peer);
}

/* What a read hands the session: the bodies, or the framing's error. */
static uint8_t bodies[8][64];
static size_t  body_lens[8];
static int     nbodies, stop_after = 100;
static ts_error_t broke;

static bool take(void *arg, const uint8_t *body, size_t len)
{
    (void) arg;
    cr_assert_lt(nbodies, 8);
    memcpy(bodies[nbodies], body, len < 64 ? len : 64);
    body_lens[nbodies++] = len;
    return nbodies < stop_after;
}

static void bad(void *arg, ts_error_t code)
{
    (void) arg;
    broke = code;
}

/* What the session does: encode the message, hand the connection its body. */
static int send_msg(gate_conn_t *conn, const ts_msg_t *m)
{
    uint8_t body[TS_FRAME_MAX];
    size_t n = ts_msg_encode(m, body, sizeof body);
    cr_assert_gt(n, 0);
    return gate_conn_send(conn, body, n);
}

static gate_feed_t feed(const void *bytes, size_t len)
{
    gate_conn_input_t in = { .message = take, .bad_frame = bad };
    return gate_conn_feed(c, bytes, len, &in);
}

/* Reads one TCP frame the connection wrote, decoded. */
static ts_msg_t read_msg(void)
{
    uint8_t buf[TS_FRAME_HEADER + TS_FRAME_MAX];
    ssize_t n = read(peer, buf, TS_FRAME_HEADER);
    cr_assert_eq(n, TS_FRAME_HEADER);
    size_t len = (size_t) buf[2] << 8 | buf[3];
    cr_assert_eq(read(peer, buf, len), (ssize_t) len);
    ts_msg_t m;
    cr_assert_eq(ts_msg_decode(buf, len, TS_FROM_SERVER, &m), TS_OK);
    return m;
}

Test(conn, tcp_frames_in_and_messages_out, .init = setup, .fini = teardown)
{
    cr_assert_eq(gate_conn_state(c), GATE_CONN_OPEN);
    cr_assert_eq(gate_conn_id(c), 42);
    cr_assert_geq(gate_conn_fd(c), 0);
    cr_assert_eq(gate_conn_peer(c)->ss_family, AF_UNIX, "the peer's address, for UDP's host check");
    nbodies = 0;
    stop_after = 100;
    const uint8_t two[] = { 0, 0, 0, 1, 0xc0, 0, 0, 0, 1, 0xc2, 0, 0 };
    cr_assert_eq(feed(two, sizeof two), GATE_FEED_OK);
    cr_assert_eq(nbodies, 2);
    cr_assert_eq(body_lens[0], 1);
    cr_assert_eq(bodies[0][0], 0xc0);
    cr_assert_eq(bodies[1][0], 0xc2);
    const uint8_t rest[] = { 0, 1, 0xc3 };
    cr_assert_eq(feed(rest, sizeof rest), GATE_FEED_OK);
    cr_assert_eq(nbodies, 3, "a frame split across reads");
    cr_assert_eq(gate_conn_fault(c), GATE_WS_OK, "TCP has no WebSocket fault");
    ts_msg_t e;
    ts_msg_error(&e, 9, TS_BAD_MESSAGE, NULL);
    cr_assert_eq(send_msg(c, &e), 0);
    ts_msg_t got = read_msg();
    cr_assert_eq(got.type, TS_ERROR);
    cr_assert_eq(got.seq, 9);
}

Test(conn, a_session_that_closes_leaves_the_rest_unread, .init = setup, .fini = teardown)
{
    nbodies = 0;
    stop_after = 1;
    const uint8_t two[] = { 0, 0, 0, 1, 0xc0, 0, 0, 0, 1, 0xc2 };
    feed(two, sizeof two);
    cr_assert_eq(nbodies, 1);
}

Test(conn, a_broken_frame_is_told_and_ends_the_read, .init = setup, .fini = teardown)
{
    nbodies = 0;
    stop_after = 100;
    broke = TS_OK;
    const uint8_t empty[] = { 0, 0, 0, 1, 0xc0, 0, 0, 0, 0, 0, 0, 0, 1, 0xc2 };
    feed(empty, sizeof empty);
    cr_assert_eq(nbodies, 1);
    cr_assert_eq(broke, TS_BAD_FRAME, "a length of 0");
    gate_conn_destroy(&c);
    close(peer);
    setup();
    broke = TS_OK;
    const uint8_t large[] = { 0, 0, 0x10, 0x01 };
    feed(large, sizeof large);
    cr_assert_eq(broke, TS_TOO_LARGE, "decided from the header alone");
}

Test(conn, a_peer_that_does_not_read_passes_the_cap, .init = setup, .fini = teardown)
{
    ts_msg_t e;
    ts_msg_error(&e, 1, TS_RATE_LIMITED, NULL);
    int rc = 0;
    for (int i = 0; i < 100000 && rc == 0; i++)
        rc = send_msg(c, &e);
    cr_assert_eq(rc, -1, "refused once socket buffers and the 1024-byte queue are full");
}

Test(conn, corked_output_leaves_in_one_write, .init = setup, .fini = teardown)
{
    cr_assert(gate_conn_cork(c));
    cr_assert_not(gate_conn_cork(c), "corked already");
    ts_msg_t e;
    ts_msg_error(&e, 3, TS_RATE_LIMITED, NULL);
    send_msg(c, &e);
    send_msg(c, &e);
    uint8_t buf[256];
    cr_assert_eq(read(peer, buf, sizeof buf), -1, "nothing written while corked");
    cr_assert_eq(gate_conn_uncork(c), 0);
    cr_assert_eq(read_msg().seq, 3);
    cr_assert_eq(read_msg().seq, 3);
    cr_assert_eq(gate_conn_flush(c), 0, "nothing left");
}

Test(conn, corked_sync_replies_are_stamped_by_the_write_that_carries_them, .init = setup, .fini = teardown)
{
    gate_exchange_t *x = gate_exchange_new();
    gate_conn_cork(c);
    ts_msg_t e;
    ts_msg_error(&e, 3, TS_RATE_LIMITED, NULL);
    send_msg(c, &e);
    for (uint64_t seq = 4; seq <= 5; seq++) {
        cr_assert(gate_exchange_begin(x, seq, GATE_VIA_STREAM, ts_clock_mono_us()));
        cr_assert_eq(gate_conn_send_sync_reply(c, x, seq, 1, 2), 0);
    }
    cr_assert(gate_exchange_begin(x, 6, GATE_VIA_STREAM, ts_clock_mono_us()), "a SYNC after them in the same read takes no slot of theirs");
    cr_assert_eq(gate_exchange_ack(x, 4, ts_clock_mono_us(), GATE_VIA_STREAM, 1), -1, "not written: no ACK can match yet");
    cr_assert(gate_exchange_begin(x, 4, GATE_VIA_STREAM, ts_clock_mono_us()));
    cr_assert_eq(gate_conn_send_sync_reply(c, x, 4, 1, 2), 0);
    usleep(20000);
    int64_t before = ts_clock_real_us();
    cr_assert_eq(gate_conn_uncork(c), 0);
    int64_t after = ts_clock_real_us();
    cr_assert_eq(read_msg().type, TS_ERROR, "in order");
    int64_t t3 = 0;
    for (int i = 0; i < 3; i++) {
        ts_msg_t r = read_msg();
        cr_assert_eq(r.type, TS_SYNC_REPLY);
        cr_assert(r.u.sync_reply.t3 >= before && r.u.sync_reply.t3 <= after, "t3 is the write's time, not the queueing's");
        cr_assert(i == 0 || r.u.sync_reply.t3 == t3, "one write, one t3");
        t3 = r.u.sync_reply.t3;
    }
    int64_t d = gate_exchange_ack(x, 5, ts_clock_mono_us(), GATE_VIA_STREAM, 1);
    cr_assert(d >= 0 && d < 20000, "the monotonic t3 is the write's too: %lld", (long long) d);
    gate_exchange_destroy(&x);
}

Test(conn, sync_replies_give_their_exchange_the_monotonic_interval, .init = setup, .fini = teardown)
{
    gate_exchange_t *x = gate_exchange_new();
    cr_assert(gate_exchange_begin(x, 5, GATE_VIA_STREAM, ts_clock_mono_us()));
    cr_assert(gate_exchange_inflight(x, 5));
    cr_assert_eq(gate_conn_send_sync_reply(c, x, 5, 111, 222), 0);
    ts_msg_t r = read_msg();
    cr_assert_eq(r.type, TS_SYNC_REPLY);
    cr_assert_eq(r.u.sync_reply.t1, 111);
    cr_assert_eq(r.u.sync_reply.t2, 222);
    cr_assert_geq(r.u.sync_reply.t3, ts_clock_real_us() - 1000000, "t3 is real time at the write");
    cr_assert_not(gate_exchange_inflight(x, 5), "answered");
    usleep(20000);
    int64_t d = gate_exchange_ack(x, 5, ts_clock_mono_us(), GATE_VIA_STREAM, 1);
    cr_assert_geq(d, 20000);
    cr_assert_lt(d, 200000);
    gate_exchange_destroy(&x);
}

Test(conn, closing_shuts_the_write_side_after_the_last_words, .init = setup, .fini = teardown)
{
    gate_conn_cork(c);
    ts_msg_t bye;
    ts_msg_bye(&bye, 0, "replaced");
    send_msg(c, &bye);
    gate_conn_close_after(c, 12345);
    cr_assert_eq(gate_conn_state(c), GATE_CONN_CLOSING);
    cr_assert_eq(gate_conn_close_deadline(c), 12345);
    nbodies = 0;
    const uint8_t one[] = { 0, 0, 0, 1, 0xc0 };
    cr_assert_eq(feed(one, sizeof one), GATE_FEED_OK);
    cr_assert_eq(nbodies, 0, "input is discarded while closing");
    cr_assert_eq(gate_conn_uncork(c), 0);
    cr_assert_eq(read_msg().type, TS_BYE, "the last words first");
    uint8_t buf[16];
    cr_assert_eq(read(peer, buf, sizeof buf), 0, "then the end of the stream");
    gate_conn_retire(c);
    cr_assert_eq(gate_conn_state(c), GATE_CONN_GONE);
    cr_assert_eq(send_msg(c, &bye), 0, "a retired stream writes nothing and fails nothing");
}

Test(conn, pending_and_the_session_it_owns, .init = setup, .fini = teardown)
{
    cr_assert_not(gate_conn_pending(c));
    gate_conn_set_pending(c, true);
    cr_assert(gate_conn_pending(c));
    cr_assert_null(gate_conn_session(c));
    gate_stats_t stats = { 0 };
    gate_session_config_t cfg = { .sync_rate = 20, .stats = &stats };
    gate_session_port_t port = { 0 };
    gate_session_t *s = gate_session_new(&cfg, &port, c, 42, true, 0);
    gate_conn_attach(c, s);
    cr_assert_eq(gate_conn_session(c), s);
    cr_assert_eq(gate_session_link(s), c);
    /* teardown's destroy frees the session (the sanitizer build would see a leak) */
}

/* ---- WebSocket ----------------------------------------------------------- */

static const char request[] = "GET / HTTP/1.1\r\nHost: g\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                              "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n";

/* A masked client frame of opcode with a short payload. */
static size_t client_frame(uint8_t *out, int opcode, const uint8_t *payload, size_t len)
{
    static const uint8_t mask[4] = { 1, 2, 3, 4 };
    out[0] = (uint8_t) (0x80 | opcode);
    out[1] = (uint8_t) (0x80 | len);
    memcpy(out + 2, mask, 4);
    for (size_t i = 0; i < len; i++)
        out[6 + i] = payload[i] ^ mask[i % 4];
    return 6 + len;
}

static void handshake(void)
{
    cr_assert_eq(feed(request, strlen(request)), GATE_FEED_OPENED);
    char answer[512] = { 0 };
    cr_assert_gt(read(peer, answer, sizeof answer - 1), 0);
    cr_assert(strncmp(answer, "HTTP/1.1 101", 12) == 0, "%s", answer);
}

Test(conn, websocket_messages_in_and_out, .init = setup_ws, .fini = teardown)
{
    handshake();
    nbodies = 0;
    stop_after = 100;
    uint8_t f[64];
    const uint8_t body[] = { 0xc0 };
    cr_assert_eq(feed(f, client_frame(f, 2, body, 1)), GATE_FEED_OK);
    cr_assert_eq(nbodies, 1);
    cr_assert_eq(bodies[0][0], 0xc0);
    broke = TS_OK;
    cr_assert_eq(feed(f, client_frame(f, 2, body, 0)), GATE_FEED_OK);
    cr_assert_eq(broke, TS_BAD_FRAME, "an empty message, as a TCP frame of length 0");
    ts_msg_t e;
    ts_msg_error(&e, 7, TS_BAD_MESSAGE, NULL);
    cr_assert_eq(send_msg(c, &e), 0);
    uint8_t out[64];
    ssize_t n = read(peer, out, sizeof out);
    cr_assert_gt(n, 2);
    cr_assert_eq(out[0], 0x82, "one binary frame, unmasked");
    ts_msg_t m;
    cr_assert_eq(ts_msg_decode(out + 2, (size_t) out[1], TS_FROM_SERVER, &m), TS_OK);
    cr_assert_eq(m.seq, 7);
    gate_conn_close_after(c, 1);
    n = read(peer, out, sizeof out);
    cr_assert_eq(out[0], 0x88, "its last words are a Close");
    cr_assert_eq(out[2] << 8 | out[3], 1000);
}

Test(conn, websocket_faults_close_the_stream, .init = setup_ws, .fini = teardown)
{
    handshake();
    uint8_t f[64];
    const uint8_t text[] = "hi";
    cr_assert_eq(feed(f, client_frame(f, 1, text, 2)), GATE_FEED_CLOSE);
    cr_assert_eq(gate_conn_fault(c), GATE_WS_TEXT);
}

Test(conn, a_refused_handshake_closes, .init = setup_ws, .fini = teardown)
{
    const char junk[] = "GET / HTTP/1.1\r\nHost: g\r\n\r\n";
    cr_assert_eq(feed(junk, strlen(junk)), GATE_FEED_CLOSE);
    cr_assert_eq(gate_conn_fault(c), GATE_WS_BAD_HANDSHAKE);
}
