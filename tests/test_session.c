/* tests/test_session.c - libticksync's protocol session over buffers: the
 * HELLO it sends, the SYNC schedule, its answers to SYNC_REPLY, what ERROR
 * and BYE do, and the UDP datagram tag. */
#include <criterion/criterion.h>
#include <string.h>

#include "datagram.h"
#include "msg.h"
#include "ticksync.h"

static ticksync_session_t *s;
static uint8_t buf[4096], reply[256];

static void setup(void)
{
    s = ticksync_session_new(42, NULL, 0, NULL);
    cr_assert_not_null(s);
}

static void teardown(void)
{
    ticksync_session_destroy(&s);
    cr_assert_null(s);
}

/* Feeds the session a server message built from m. */
static int feed(const ts_msg_t *m, int64_t local)
{
    size_t n = ts_msg_encode(m, buf, sizeof buf);
    cr_assert_gt(n, 0);
    return ticksync_session_receive(s, buf, n, local, reply, sizeof reply);
}

static void welcome(bool udp)
{
    ts_msg_t w = { .type = TS_WELCOME };
    w.u.welcome.version = 1;
    w.u.welcome.session_id = 0xabcdef;
    w.u.welcome.server_time = 5000000;
    w.u.welcome.sync_interval_ms = 250;
    w.u.welcome.has_udp_key = udp;
    memset(w.u.welcome.udp_key, 7, sizeof w.u.welcome.udp_key);
    cr_assert_eq(feed(&w, 0), 0);
}

static ts_msg_t decode_client(const uint8_t *b, size_t n)
{
    ts_msg_t m;
    cr_assert_eq(ts_msg_decode(b, n, TS_FROM_CLIENT, &m), TS_OK);
    return m;
}

Test(session, hello_carries_player_and_token, .init = setup, .fini = teardown)
{
    ts_msg_t m = decode_client(buf, ticksync_session_hello(s, buf, sizeof buf));
    cr_assert_eq(m.type, TS_HELLO);
    cr_assert_eq(m.u.hello.version, 1);
    cr_assert_eq(m.u.hello.player_id, 42);
    cr_assert_not(m.u.hello.has_token, "open mode: nil");
    uint8_t token[40];
    memset(token, 9, sizeof token);
    ticksync_session_t *t = ticksync_session_new(7, token, sizeof token, NULL);
    m = decode_client(buf, ticksync_session_hello(t, buf, sizeof buf));
    cr_assert(m.u.hello.has_token);
    cr_assert_eq(m.u.hello.token_len, 40);
    cr_assert_arr_eq(m.u.hello.token, token, 40);
    ticksync_session_destroy(&t);
    cr_assert_null(ticksync_session_new(0, NULL, 0, NULL), "player 0 is out of range");
}

Test(session, syncs_only_once_welcomed_and_on_schedule, .init = setup, .fini = teardown)
{
    cr_assert_eq(ticksync_session_sync(s, 1000, buf, sizeof buf), 0, "nothing before WELCOME");
    welcome(false);
    cr_assert_eq(ticksync_session_state(s), TICKSYNC_SESSION_WELCOMED);
    cr_assert_eq(ticksync_session_id(s), 0xabcdef);
    cr_assert_not(ticksync_session_udp_ready(s));
    size_t n = ticksync_session_sync(s, 1000, buf, sizeof buf);
    ts_msg_t m = decode_client(buf, n);
    cr_assert_eq(m.type, TS_SYNC);
    cr_assert_eq(m.seq, 1);
    cr_assert_eq(m.u.sync.t1, 1000);
    cr_assert_eq(ticksync_session_sync(s, 1001, buf, sizeof buf), 0, "not due yet");
    n = ticksync_session_sync(s, 1000 + 100000, buf, sizeof buf);
    cr_assert_eq(decode_client(buf, n).seq, 2, "burst interval");
}

Test(session, answers_a_fresh_reply_once_with_its_turnaround, .init = setup, .fini = teardown)
{
    welcome(false);
    ticksync_session_sync(s, 1000, buf, sizeof buf);
    ts_msg_t r = { .type = TS_SYNC_REPLY, .seq = 1 };
    r.u.sync_reply.t1 = 1000;
    r.u.sync_reply.t2 = 9000000;
    r.u.sync_reply.t3 = 9000100;
    int n = feed(&r, 21100);
    cr_assert_gt(n, 0);
    ts_msg_t ack = decode_client(reply, (size_t) n);
    cr_assert_eq(ack.type, TS_SYNC_ACK);
    cr_assert_eq(ack.seq, 1);
    cr_assert_eq(ack.u.sync_ack.t4, 21100);
    cr_assert_eq(ack.u.sync_ack.t5, 21100);
    cr_assert_eq(ticksync_delay(ticksync_session_clock(s)), 20000);
    cr_assert_eq(feed(&r, 21200), 0, "a duplicate is ignored");
    r.seq = 9;
    cr_assert_eq(feed(&r, 21300), 0, "a seq never sent is ignored");
    ts_msg_t res = { .type = TS_SYNC_RESULT, .seq = 1 };
    res.u.sync_result.rtt = 19000;
    res.u.sync_result.srtt = 19000;
    res.u.sync_result.rttvar = 9500;
    cr_assert_eq(feed(&res, 21400), 0);
    int64_t rtt, srtt, rttvar;
    ticksync_session_server_rtt(s, &rtt, &srtt, &rttvar);
    cr_assert_eq(rtt, 19000);
    cr_assert_eq(rttvar, 9500);
}

Test(session, reports_its_estimates_once_synced, .init = setup, .fini = teardown)
{
    welcome(false);
    int64_t t = 0;
    ts_msg_t ack = { 0 };
    for (int i = 1; i <= 4; i++, t += 100000) {
        cr_assert_gt(ticksync_session_sync(s, t, buf, sizeof buf), 0);
        ts_msg_t r = { .type = TS_SYNC_REPLY, .seq = (uint64_t) i };
        r.u.sync_reply.t1 = t;
        r.u.sync_reply.t2 = r.u.sync_reply.t3 = 1000000 + t + 5000;
        int n = feed(&r, t + 10000);
        ack = decode_client(reply, (size_t) n);
    }
    cr_assert(ack.u.sync_ack.has_client_rtt && ack.u.sync_ack.has_client_offset);
    cr_assert_eq(ack.u.sync_ack.client_rtt, 10000);
    cr_assert_eq(ack.u.sync_ack.client_offset, 1000000);
}

Test(session, errors_that_close_and_errors_that_do_not, .init = setup, .fini = teardown)
{
    welcome(false);
    ts_msg_t e;
    ts_msg_error(&e, 3, TS_RATE_LIMITED, "slow down");
    cr_assert_eq(feed(&e, 1), 0);
    ts_msg_error(&e, 3, TS_UNAVAILABLE, "shard down");
    cr_assert_eq(feed(&e, 1), 0);
    cr_assert_eq(ticksync_session_state(s), TICKSYNC_SESSION_WELCOMED);
    cr_assert_eq(ticksync_session_last_error(s), TS_UNAVAILABLE);
    ts_msg_error(&e, 0, TS_UNAUTHORIZED, "no");
    cr_assert_eq(feed(&e, 1), -1);
    cr_assert_eq(ticksync_session_state(s), TICKSYNC_SESSION_CLOSED);
    ticksync_session_reset(s);
    cr_assert_eq(ticksync_session_state(s), TICKSYNC_SESSION_NEW);
    welcome(false);
    ts_msg_bye(&e, 0, "replaced");
    cr_assert_eq(feed(&e, 1), -1);
    cr_assert(ticksync_session_replaced(s));
    cr_assert_eq(ticksync_session_receive(s, (const uint8_t *) "\xc1", 1, 1, reply, sizeof reply), -1);
}

Test(session, udp_datagrams_are_tagged_and_checked, .init = setup, .fini = teardown)
{
    uint8_t msg[] = { 0x93, 0x10, 0x01, 0x05 }, dgram[64];
    cr_assert_eq(ticksync_session_udp_wrap(s, msg, sizeof msg, dgram, sizeof dgram), 0, "no key before WELCOME");
    welcome(true);
    cr_assert(ticksync_session_udp_ready(s));
    size_t n = ticksync_session_udp_wrap(s, msg, sizeof msg, dgram, sizeof dgram);
    cr_assert_eq(n, TS_DGRAM_HEADER + sizeof msg);
    cr_assert_eq(dgram[7], 0xef, "session id big-endian");
    const uint8_t *out;
    cr_assert_eq(ticksync_session_udp_unwrap(s, dgram, n, &out), sizeof msg);
    cr_assert_arr_eq(out, msg, sizeof msg);
    dgram[n - 1] ^= 1;
    cr_assert_eq(ticksync_session_udp_unwrap(s, dgram, n, &out), 0, "a changed message fails its tag");
    dgram[n - 1] ^= 1;
    dgram[8] ^= 1;
    cr_assert_eq(ticksync_session_udp_unwrap(s, dgram, n, &out), 0, "a changed tag fails");
    dgram[8] ^= 1;
    dgram[0] ^= 1;
    cr_assert_eq(ticksync_session_udp_unwrap(s, dgram, n, &out), 0, "another session's");
}
