/* tests/test_conn.c - one gate connection over a socketpair: frames in,
 * messages out, the output cap, corking, the exchange slots and their
 * monotonic t6 - t3, the rate bucket, and UDP's per-connection checks. */
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
    gate_conn_cork(c);
    ts_msg_t e;
    ts_msg_error(&e, 3, TS_RATE_LIMITED, NULL);
    gate_conn_send(c, &e);
    for (uint64_t seq = 4; seq <= 5; seq++) {
        cr_assert(gate_conn_sync_begin(c, seq, false, ts_clock_mono_us()));
        cr_assert_eq(gate_conn_send_sync_reply(c, seq, 1, 2), 0);
    }
    cr_assert(gate_conn_sync_begin(c, 6, false, ts_clock_mono_us()), "a SYNC after them in the same read takes no slot of theirs");
    cr_assert_eq(gate_conn_sync_ack(c, 4, ts_clock_mono_us(), false, 1), -1, "not written: no ACK can match yet");
    cr_assert(gate_conn_sync_begin(c, 4, false, ts_clock_mono_us()));
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
    int64_t d = gate_conn_sync_ack(c, 5, ts_clock_mono_us(), false, 1);
    cr_assert(d >= 0 && d < 20000, "the monotonic t3 is the write's too: %lld", (long long) d);
}

Test(conn, exchange_slots_give_the_monotonic_interval, .init = setup, .fini = teardown)
{
    gate_conn_welcome(c, 7, 42);
    cr_assert(gate_conn_sync_begin(c, 5, false, ts_clock_mono_us()));
    cr_assert(gate_conn_sync_inflight(c, 5));
    cr_assert_eq(gate_conn_send_sync_reply(c, 5, 111, 222), 0);
    ts_msg_t r = read_msg();
    cr_assert_eq(r.type, TS_SYNC_REPLY);
    cr_assert_eq(r.u.sync_reply.t1, 111);
    cr_assert_eq(r.u.sync_reply.t2, 222);
    cr_assert_geq(r.u.sync_reply.t3, ts_clock_real_us() - 1000000, "t3 is real time at the write");
    cr_assert_not(gate_conn_sync_inflight(c, 5), "answered");
    usleep(20000);
    int64_t d = gate_conn_sync_ack(c, 5, ts_clock_mono_us(), false, 1);
    cr_assert_geq(d, 20000);
    cr_assert_lt(d, 200000);
    cr_assert_eq(gate_conn_sync_ack(c, 5, ts_clock_mono_us(), false, 1), -1, "one ACK per exchange");
    cr_assert_eq(gate_conn_sync_ack(c, 6, ts_clock_mono_us(), false, 1), -1, "unknown seq");
    /* an ACK later than 5 s is no sample */
    cr_assert(gate_conn_sync_begin(c, 8, false, ts_clock_mono_us()));
    gate_conn_send_sync_reply(c, 8, 1, 2);
    read_msg();
    cr_assert_eq(gate_conn_sync_ack(c, 8, ts_clock_mono_us() + GATE_EXCHANGE_US + 1, false, 1), -1);
    bool udp = true;
    cr_assert_not(gate_conn_sync_result(c, 8, &udp), "no result is due for an ACK that was no sample");
}

Test(conn, an_acked_exchange_awaits_one_result_until_its_deadline, .init = setup, .fini = teardown)
{
    gate_conn_welcome(c, 7, 42);
    bool udp = false;
    int64_t base = ts_clock_mono_us() + 1000000;
    for (uint64_t seq = 1; seq <= 3; seq++) {
        cr_assert(gate_conn_sync_begin(c, seq, false, ts_clock_mono_us()));
        gate_conn_send_sync_reply(c, seq, 1, 2);
        read_msg();
        cr_assert_geq(gate_conn_sync_ack(c, seq, ts_clock_mono_us(), seq == 2, base + (int64_t) seq), 0);
    }
    cr_assert(gate_conn_sync_result(c, 2, &udp));
    cr_assert(udp, "the ACK came over UDP, so does its result");
    cr_assert_not(gate_conn_sync_result(c, 2, &udp), "one result per ACK");
    cr_assert_not(gate_conn_sync_result_expire(c, 1, base + 2, &udp), "only the deadline it was given");
    cr_assert(gate_conn_sync_result_expire(c, 1, base + 1, &udp));
    cr_assert_not(udp);
    cr_assert_not(gate_conn_sync_result(c, 1, &udp), "expired: a late result is not sent");
    cr_assert(gate_conn_sync_result(c, 3, &udp));
    cr_assert_not(gate_conn_sync_result(c, 9, &udp), "never ACKed");
}

Test(conn, a_cancelled_sync_frees_its_slot, .init = setup, .fini = teardown)
{
    gate_conn_welcome(c, 7, 42);
    for (uint64_t seq = 1; seq <= GATE_CONN_SLOTS; seq++)
        cr_assert(gate_conn_sync_begin(c, seq, seq == 4, ts_clock_mono_us()));
    cr_assert_not(gate_conn_sync_begin(c, 100, false, ts_clock_mono_us()), "every slot in flight");
    bool udp = false;
    cr_assert(gate_conn_sync_cancel(c, 4, &udp));
    cr_assert(udp);
    cr_assert_not(gate_conn_sync_inflight(c, 4));
    cr_assert_not(gate_conn_sync_cancel(c, 4, &udp), "once");
    cr_assert(gate_conn_sync_begin(c, 100, false, ts_clock_mono_us()), "its slot is free again");
}

Test(conn, seqs_that_share_a_home_slot_are_all_found, .init = setup, .fini = teardown)
{
    gate_conn_welcome(c, 7, 42);
    /* 5, 5 + SLOTS and 5 + 2 * SLOTS share a home slot; 6 then finds its
     * own home taken by one of them */
    const uint64_t seqs[] = { 5, 5 + GATE_CONN_SLOTS, 5 + 2 * GATE_CONN_SLOTS, 6, 1ULL << 63 };
    const size_t n = sizeof seqs / sizeof seqs[0];
    for (size_t i = 0; i < n; i++)
        cr_assert(gate_conn_sync_begin(c, seqs[i], false, ts_clock_mono_us()));
    for (size_t i = 0; i < n; i++)
        cr_assert(gate_conn_sync_inflight(c, seqs[i]), "seq %llu", (unsigned long long) seqs[i]);
    bool udp;
    cr_assert(gate_conn_sync_cancel(c, 5, &udp), "the one at home leaves");
    cr_assert(gate_conn_sync_inflight(c, 5 + GATE_CONN_SLOTS), "the ones away are still found");
    cr_assert(gate_conn_sync_inflight(c, 5 + 2 * GATE_CONN_SLOTS));
    cr_assert_not(gate_conn_sync_inflight(c, 5));
    cr_assert(gate_conn_sync_begin(c, 5 + GATE_CONN_SLOTS, false, ts_clock_mono_us()), "a repeated SYNC");
    for (size_t i = 1; i < n; i++)
        cr_assert(gate_conn_sync_cancel(c, seqs[i], &udp), "seq %llu", (unsigned long long) seqs[i]);
    cr_assert_not(gate_conn_sync_cancel(c, 5 + GATE_CONN_SLOTS, &udp), "a repeated SYNC holds one slot");
    for (uint64_t seq = 1; seq <= GATE_CONN_SLOTS; seq++)
        cr_assert(gate_conn_sync_begin(c, seq, false, ts_clock_mono_us()), "every slot is free again");
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
