/* tests/test_conn.c - one gate connection over a socketpair: frames in,
 * messages out, the output cap, corking, SYNC_REPLYs stamped by the write
 * that carries them (t3, and the exchange's monotonic t6 - t3), the rate
 * bucket, and UDP's per-connection checks. */
#include <criterion/criterion.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "conn.h"
#include "frame.h"
#include "udptag.h"

static int peer;
static gate_conn_t *c;

static void setup(void)
{
    int sv[2];
    cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
    peer = sv[1];
    c = gate_conn_new(sv[0], 42, 1024, 20, ts_clock_mono_us());
    cr_assert_not_null(c);
}

static void teardown(void)
{
    gate_conn_destroy(&c);
    cr_assert_null(c);
    close(peer);
}

/* Reads one frame the connection wrote, decoded. */
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

Test(conn, frames_in_and_messages_out, .init = setup, .fini = teardown)
{
    cr_assert_eq(gate_conn_state(c), GATE_CONN_NEW);
    const uint8_t two[] = { 0, 0, 0, 1, 0xc0, 0, 0, 0, 1, 0xc2 };
    size_t used;
    const uint8_t *body;
    size_t len;
    cr_assert_eq(gate_conn_feed(c, two, sizeof two, &used, &body, &len), TS_FRAME_READY);
    cr_assert_eq(len, 1);
    cr_assert_eq(body[0], 0xc0);
    cr_assert_eq(gate_conn_feed(c, two + used, sizeof two - used, &used, &body, &len), TS_FRAME_READY);
    cr_assert_eq(body[0], 0xc2);
    gate_conn_welcome(c, 7, 42);
    cr_assert_eq(gate_conn_state(c), GATE_CONN_WELCOMED);
    cr_assert_eq(gate_conn_player(c), 7);
    ts_msg_t e;
    ts_msg_error(&e, 9, TS_BAD_MESSAGE, NULL);
    cr_assert_eq(gate_conn_send(c, &e), 0);
    ts_msg_t got = read_msg();
    cr_assert_eq(got.type, TS_ERROR);
    cr_assert_eq(got.seq, 9);
    for (int i = 1; i < 8; i++)
        cr_assert_eq(gate_conn_bad_message(c), i);
}

Test(conn, a_peer_that_does_not_read_passes_the_cap, .init = setup, .fini = teardown)
{
    ts_msg_t e;
    ts_msg_error(&e, 1, TS_RATE_LIMITED, NULL);
    int rc = 0;
    for (int i = 0; i < 100000 && rc == 0; i++)
        rc = gate_conn_send(c, &e);
    cr_assert_eq(rc, -1, "refused once socket buffers and the 1024-byte queue are full");
}

Test(conn, corked_output_leaves_in_one_write, .init = setup, .fini = teardown)
{
    gate_conn_cork(c);
    ts_msg_t e;
    ts_msg_error(&e, 3, TS_RATE_LIMITED, NULL);
    gate_conn_send(c, &e);
    gate_conn_send(c, &e);
    uint8_t buf[256];
    cr_assert_eq(read(peer, buf, sizeof buf), -1, "nothing written while corked");
    cr_assert(gate_conn_has_output(c));
    cr_assert_eq(gate_conn_uncork(c), 0);
    cr_assert_not(gate_conn_has_output(c));
    cr_assert_eq(read_msg().seq, 3);
    cr_assert_eq(read_msg().seq, 3);
}

Test(conn, corked_sync_replies_are_stamped_by_the_write_that_carries_them, .init = setup, .fini = teardown)
{
    gate_conn_welcome(c, 7, 42);
    gate_exchange_t *x = gate_conn_exchanges(c);
    gate_conn_cork(c);
    ts_msg_t e;
    ts_msg_error(&e, 3, TS_RATE_LIMITED, NULL);
    gate_conn_send(c, &e);
    for (uint64_t seq = 4; seq <= 5; seq++) {
        cr_assert(gate_exchange_begin(x, seq, false, ts_clock_mono_us()));
        cr_assert_eq(gate_conn_send_sync_reply(c, seq, 1, 2), 0);
    }
    cr_assert(gate_exchange_begin(x, 6, false, ts_clock_mono_us()), "a SYNC after them in the same read takes no slot of theirs");
    cr_assert_eq(gate_exchange_ack(x, 4, ts_clock_mono_us(), false, 1), -1, "not written: no ACK can match yet");
    cr_assert(gate_exchange_begin(x, 4, false, ts_clock_mono_us()));
    cr_assert_eq(gate_conn_send_sync_reply(c, 4, 1, 2), 0);
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
    int64_t d = gate_exchange_ack(x, 5, ts_clock_mono_us(), false, 1);
    cr_assert(d >= 0 && d < 20000, "the monotonic t3 is the write's too: %lld", (long long) d);
}

Test(conn, sync_replies_give_their_exchange_the_monotonic_interval, .init = setup, .fini = teardown)
{
    gate_conn_welcome(c, 7, 42);
    gate_exchange_t *x = gate_conn_exchanges(c);
    cr_assert(gate_exchange_begin(x, 5, false, ts_clock_mono_us()));
    cr_assert(gate_exchange_inflight(x, 5));
    cr_assert_eq(gate_conn_send_sync_reply(c, 5, 111, 222), 0);
    ts_msg_t r = read_msg();
    cr_assert_eq(r.type, TS_SYNC_REPLY);
    cr_assert_eq(r.u.sync_reply.t1, 111);
    cr_assert_eq(r.u.sync_reply.t2, 222);
    cr_assert_geq(r.u.sync_reply.t3, ts_clock_real_us() - 1000000, "t3 is real time at the write");
    cr_assert_not(gate_exchange_inflight(x, 5), "answered");
    usleep(20000);
    int64_t d = gate_exchange_ack(x, 5, ts_clock_mono_us(), false, 1);
    cr_assert_geq(d, 20000);
    cr_assert_lt(d, 200000);
    cr_assert_eq(gate_exchange_ack(x, 5, ts_clock_mono_us(), false, 1), -1, "one ACK per exchange");
    cr_assert_eq(gate_exchange_ack(x, 6, ts_clock_mono_us(), false, 1), -1, "unknown seq");
    /* an ACK later than 5 s is no sample */
    cr_assert(gate_exchange_begin(x, 8, false, ts_clock_mono_us()));
    gate_conn_send_sync_reply(c, 8, 1, 2);
    read_msg();
    cr_assert_eq(gate_exchange_ack(x, 8, ts_clock_mono_us() + GATE_EXCHANGE_US + 1, false, 1), -1);
    bool udp = true;
    cr_assert_not(gate_exchange_result(x, 8, &udp), "no result is due for an ACK that was no sample");
}

Test(conn, the_bucket_allows_the_rate, .init = setup, .fini = teardown)
{
    int64_t now = ts_clock_mono_us();
    int allowed = 0;
    for (int i = 0; i < 100; i++)
        allowed += gate_conn_sync_allowed(c, now);
    cr_assert_eq(allowed, 20, "a second's worth at once");
    cr_assert(gate_conn_sync_allowed(c, now + 60000), "and more as time passes");
}

Test(conn, udp_needs_the_key_and_the_same_host, .init = setup, .fini = teardown)
{
    uint8_t key[TS_UDP_KEY_BYTES] = { 1, 2, 3 }, tag[8], dgram[64];
    const uint8_t msg[] = { 0x93, 0x10, 0x01, 0x00 };
    cr_assert_not(gate_conn_udp_enabled(c), "not before WELCOME");
    gate_conn_welcome(c, 7, 42);
    gate_conn_enable_udp(c, -1, key);
    cr_assert_not(gate_conn_udp_enabled(c), "no socket");
    gate_conn_enable_udp(c, 99, key);
    cr_assert(gate_conn_udp_enabled(c));
    cr_assert_gt(ts_udptag_wrap(42, key, msg, sizeof msg, dgram, sizeof dgram), 0);
    memcpy(tag, dgram + 8, 8);
    cr_assert(gate_conn_udp_check(c, msg, sizeof msg, tag));
    tag[0] ^= 1;
    cr_assert_not(gate_conn_udp_check(c, msg, sizeof msg, tag));
    struct sockaddr_storage from = { .ss_family = AF_INET };
    cr_assert_not(gate_conn_same_host(c, &from), "a unix socketpair has no IP host");
}
