/* tests/test_gate_session.c - every rule of docs/PROTOCOL.md the gate keeps for
 * one session, driven through gate/session with a fake port
 * (tests/fakeport.h): no socket, no event loop. HELLO, tokens and replace;
 * what comes before WELCOME; SYNC answered whatever the shard's state;
 * SYNC_ACK, its SYNC_RESULT, UNAVAILABLE three ways; the rate; each ERROR
 * with whether it closes; BYE both ways; UDP answered by datagram; and
 * each refusal counted. */
#include <criterion/criterion.h>
#include <netinet/in.h>
#include <string.h>

#include "fakeport.h"
#include "stats.h"
#include "token.h"
#include "udptag.h"

static ts_metrics_t *reg;
static gate_stats_t stats;
static ts_decoder_t *dec;
static gate_session_config_t cfg;
static fake_port_t fake;
static fake_link_t la, lb;
static gate_session_t *a, *b;
static const uint8_t secret[] = "a cluster's shared secret";

static void setup(void)
{
    reg = ts_metrics_new(TS_METRICS_ONE_WRITER);
    cr_assert_eq(gate_stats_init(&stats, reg), 0);
    dec = ts_decoder_new();
    cfg = (gate_session_config_t) { .sync_rate = 20, .sync_interval_ms = 1000, .udp = true, .dec = dec,
                                    .stats = &stats };
    fake_port_init(&fake);
    memset(&la, 0, sizeof la);
    memset(&lb, 0, sizeof lb);
    a = gate_session_new(&cfg, &fake.port, &la, 101, true, ts_clock_mono_us());
    b = gate_session_new(&cfg, &fake.port, &lb, 102, true, ts_clock_mono_us());
    cr_assert(a && b);
}

static void teardown(void)
{
    gate_session_destroy(&a);
    gate_session_destroy(&b);
    cr_assert_null(a);
    ts_decoder_destroy(&dec);
    ts_metrics_destroy(&reg);
}

static uint64_t counted(ts_metric_t *m) { return ts_metric_value(m); }

/* Feeds s one client message. */
static void tell(gate_session_t *s, const ts_msg_t *m)
{
    uint8_t buf[512];
    size_t n = fake_encode(m, buf, sizeof buf);
    gate_session_frame(s, buf, n, ts_clock_real_us(), ts_clock_mono_us());
}

static void hello(gate_session_t *s, uint64_t seq, uint64_t player)
{
    uint8_t buf[512];
    size_t n = fake_hello(seq, player, NULL, 0, buf, sizeof buf);
    gate_session_frame(s, buf, n, ts_clock_real_us(), ts_clock_mono_us());
}

static void sync_at(gate_session_t *s, uint64_t seq, int64_t t1, int64_t t2, int64_t now)
{
    ts_msg_t m = { .type = TS_SYNC, .seq = seq };
    m.u.sync.t1 = t1;
    uint8_t buf[64];
    size_t n = fake_encode(&m, buf, sizeof buf);
    gate_session_frame(s, buf, n, t2, now);
}

static void ack(gate_session_t *s, uint64_t seq)
{
    ts_msg_t m = { .type = TS_SYNC_ACK, .seq = seq };
    m.u.sync_ack.t4 = 1000;
    m.u.sync_ack.t5 = 1100;
    m.u.sync_ack.has_client_rtt = true;
    m.u.sync_ack.client_rtt = 777;
    tell(s, &m);
}

static void expect_error(const fake_link_t *l, uint64_t seq, ts_error_t code)
{
    const ts_msg_t *m = fake_last(l);
    cr_assert_eq(m->type, TS_ERROR);
    cr_assert_eq(m->u.error.code, code, "code %d, wanted %s", (int) m->u.error.code, ts_error_name(code));
    cr_assert_eq(m->seq, seq);
}

/* ---- HELLO -------------------------------------------------------------- */

Test(session, hello_is_welcomed_and_the_shard_told, .init = setup, .fini = teardown)
{
    cr_assert_eq(gate_session_state(a), GATE_SESSION_NEW);
    hello(a, 1, 555);
    const ts_msg_t *w = fake_last(&la);
    cr_assert_eq(w->type, TS_WELCOME);
    cr_assert_eq(w->seq, 1);
    cr_assert_eq(w->u.welcome.session_id, 101, "the id datagrams name");
    cr_assert_eq(w->u.welcome.sync_interval_ms, 1000);
    cr_assert(w->u.welcome.has_udp_key);
    int64_t now = ts_clock_real_us();
    cr_assert(w->u.welcome.server_time <= now && w->u.welcome.server_time > now - 1000000);
    cr_assert_eq(gate_session_state(a), GATE_SESSION_WELCOMED);
    cr_assert_eq(gate_session_player(a), 555);
    cr_assert_eq(fake.nfwd, 1);
    cr_assert_eq(fake.fwd[0].kind, TS_ENV_OPEN);
    cr_assert_eq(fake.fwd[0].player_id, 555);
    cr_assert_eq(fake.fwd[0].conn, 101);
    cr_assert_eq(counted(stats.sessions), 1);
    cr_assert_eq(counted(stats.in[TS_HELLO]), 1);
    cr_assert_eq(counted(stats.out[TS_WELCOME]), 1);
}

/* A shard that comes up (at start, or after an outage) may have missed
 * the OPEN: a welcomed session tells it again with HELD, which kicks no
 * other gate's session; only its own shard's coming up counts. */
Test(session, a_shard_that_comes_up_hears_held_from_its_sessions, .init = setup, .fini = teardown)
{
    gate_session_held(a, 1ULL << 3);
    cr_assert_eq(fake.nfwd, 0, "not welcomed: nothing held");
    hello(a, 1, 555);
    int fwd = fake.nfwd;
    gate_session_held(a, 1ULL << 2);
    cr_assert_eq(fake.nfwd, fwd, "another shard came up");
    gate_session_held(a, (1ULL << 3) | 1);
    cr_assert_eq(fake.nfwd, fwd + 1);
    cr_assert_eq(fake.fwd[fwd].kind, TS_ENV_HELD);
    cr_assert_eq(fake.fwd[fwd].player_id, 555);
    cr_assert_eq(fake.fwd[fwd].conn, 101);
}

Test(session, no_udp_key_without_datagrams, .init = setup, .fini = teardown)
{
    gate_session_t *ws = gate_session_new(&cfg, &fake.port, &lb, 103, false, 0);
    hello(ws, 1, 7);
    cr_assert_eq(fake_last(&lb)->type, TS_WELCOME);
    cr_assert_not(fake_last(&lb)->u.welcome.has_udp_key, "a browser's WebSocket has no UDP");
    cr_assert_not(gate_session_udp(ws));
    gate_session_destroy(&ws);
    cfg.udp = false;
    hello(a, 1, 8);
    cr_assert_not(fake_last(&la)->u.welcome.has_udp_key, "nor a gate without UDP");
}

Test(session, anything_before_hello_is_not_authenticated_and_closes, .init = setup, .fini = teardown)
{
    sync_at(a, 4, 1, 2, ts_clock_mono_us());
    expect_error(&la, 4, TS_NOT_AUTHENTICATED);
    cr_assert(la.closed);
    cr_assert_eq(gate_session_state(a), GATE_SESSION_CLOSED);
    int sent = la.nsent;
    hello(a, 5, 9);
    cr_assert_eq(la.nsent, sent, "input after the close is ignored");
    cr_assert_eq(fake.nfwd, 0, "no shard heard of it");
    cr_assert_eq(counted(stats.errors[TS_NOT_AUTHENTICATED]), 1);
}

Test(session, a_malformed_message_before_hello_is_bad_message, .init = setup, .fini = teardown)
{
    const uint8_t wrong[] = { 0x93, 0x10, 0x06, 0xc0 };   /* SYNC, seq 6, t1 nil */
    gate_session_frame(a, wrong, sizeof wrong, 0, 0);
    expect_error(&la, 6, TS_BAD_MESSAGE);
    cr_assert_not(la.closed);
    hello(a, 7, 9);
    cr_assert_eq(fake_last(&la)->type, TS_WELCOME, "HELLO still welcome after it");
}

Test(session, tokens_are_checked_when_the_gate_has_a_secret, .init = setup, .fini = teardown)
{
    cfg.secret = secret;
    cfg.secret_len = sizeof secret - 1;
    uint8_t buf[512], token[TS_TOKEN_LEN];
    int64_t now_s = ts_clock_real_us() / 1000000;

    gate_session_frame(a, buf, fake_hello(1, 42, NULL, 0, buf, sizeof buf), 0, 0);
    expect_error(&la, 1, TS_UNAUTHORIZED);
    cr_assert(la.closed, "no token");

    struct { uint64_t player; int64_t expiry; const char *why; } bad[] = {
        { 43, now_s + 60, "another player's" }, { 42, now_s - 1, "expired" },
    };
    for (size_t i = 0; i < 2; i++) {
        fake_link_t l = { 0 };
        gate_session_t *s = gate_session_new(&cfg, &fake.port, &l, 200 + i, true, 0);
        ts_token_make(secret, sizeof secret - 1, bad[i].player, (uint64_t) bad[i].expiry, token);
        gate_session_frame(s, buf, fake_hello(2, 42, token, sizeof token, buf, sizeof buf), 0, 0);
        expect_error(&l, 2, TS_UNAUTHORIZED);
        cr_assert(l.closed, "%s token", bad[i].why);
        gate_session_destroy(&s);
    }
    ts_token_make(secret, sizeof secret - 1, 42, (uint64_t) now_s + 60, token);
    gate_session_frame(b, buf, fake_hello(3, 42, token, sizeof token, buf, sizeof buf), 0, 0);
    cr_assert_eq(fake_last(&lb)->type, TS_WELCOME);
    cr_assert_eq(counted(stats.errors[TS_UNAUTHORIZED]), 3);
    cr_assert_eq(fake.nfwd, 1, "only the good one opened");
}

Test(session, an_unsupported_version_closes, .init = setup, .fini = teardown)
{
    const uint8_t v2[] = { 0x95, 0x01, 0x03, 0x02, 0x05, 0xc0 };   /* HELLO seq 3, version 2 */
    gate_session_frame(a, v2, sizeof v2, 0, 0);
    expect_error(&la, 3, TS_UNSUPPORTED_VERSION);
    cr_assert(la.closed);
}

Test(session, a_second_hello_for_a_player_replaces_the_first, .init = setup, .fini = teardown)
{
    hello(a, 1, 555);
    hello(b, 1, 555);
    const ts_msg_t *bye = fake_last(&la);
    cr_assert_eq(bye->type, TS_BYE);
    cr_assert_str_eq(bye->u.bye.text, "replaced");
    cr_assert(la.closed);
    cr_assert_eq(gate_session_state(a), GATE_SESSION_CLOSED);
    cr_assert_eq(fake_last(&lb)->type, TS_WELCOME);
    cr_assert_not(lb.closed);
    cr_assert_eq(counted(stats.replaced), 1);
    gate_session_end(a);
    cr_assert_eq(fake.fwd[fake.nfwd - 1].kind, TS_ENV_CLOSE);
    cr_assert_eq(fake.fwd[fake.nfwd - 1].conn, 101, "the old connection's CLOSE: the shard keeps the new one");
}

Test(session, hello_again_is_bad_message_and_the_eighth_closes, .init = setup, .fini = teardown)
{
    hello(a, 1, 555);
    for (int i = 1; i <= 7; i++) {
        hello(a, 10 + (uint64_t) i, 555);
        expect_error(&la, 10 + (uint64_t) i, TS_BAD_MESSAGE);
        cr_assert_not(la.closed, "BAD_MESSAGE %d keeps the session", i);
    }
    ts_msg_t result = { .type = TS_SYNC_RESULT, .seq = 30 };   /* a server's message from a client */
    tell(a, &result);
    expect_error(&la, 30, TS_BAD_MESSAGE);
    cr_assert(la.closed, "the 8th closes it");
    cr_assert_eq(counted(stats.errors[TS_BAD_MESSAGE]), 8);
}

Test(session, broken_frames_close_with_seq_0, .init = setup, .fini = teardown)
{
    gate_session_bad_frame(a, TS_TOO_LARGE);
    expect_error(&la, 0, TS_TOO_LARGE);
    cr_assert(la.closed);
    const uint8_t two_values[] = { 0xc0, 0xc0 };
    gate_session_frame(b, two_values, sizeof two_values, 0, 0);
    expect_error(&lb, 0, TS_BAD_FRAME);
    cr_assert(lb.closed, "bytes that are not one msgpack value");
}

/* ---- SYNC and SYNC_ACK -------------------------------------------------- */

Test(session, a_sync_is_answered_and_forwarded, .init = setup, .fini = teardown)
{
    hello(a, 1, 555);
    int64_t before = ts_clock_real_us();
    sync_at(a, 2, 111, 222, ts_clock_mono_us());
    const ts_msg_t *r = fake_last(&la);
    cr_assert_eq(r->type, TS_SYNC_REPLY);
    cr_assert_eq(r->seq, 2);
    cr_assert_eq(r->u.sync_reply.t1, 111);
    cr_assert_eq(r->u.sync_reply.t2, 222);
    cr_assert_geq(r->u.sync_reply.t3, before);
    const ts_env_t *e = &fake.fwd[fake.nfwd - 1];
    cr_assert_eq(e->kind, TS_ENV_SYNC);
    cr_assert_eq(e->player_id, 555, "the player bound at HELLO");
    cr_assert_eq(e->seq, 2);
    cr_assert_eq(e->t1, 111);
    cr_assert_eq(e->t2, 222);
    cr_assert_eq(counted(stats.unmeasured), 0);
}

Test(session, a_sync_is_answered_while_the_shard_is_down, .init = setup, .fini = teardown)
{
    hello(a, 1, 555);
    fake.shard_down = true;
    int fwd = fake.nfwd;
    sync_at(a, 2, 111, 222, ts_clock_mono_us());
    cr_assert_eq(fake_last(&la)->type, TS_SYNC_REPLY, "the client's clock needs only the gate");
    cr_assert_eq(fake.nfwd, fwd, "the shard cannot be told");
    cr_assert_eq(counted(stats.unmeasured), 1);
    ack(a, 2);
    expect_error(&la, 2, TS_UNAVAILABLE);
    cr_assert_not(la.closed, "UNAVAILABLE drops the message, not the session");
}

Test(session, over_the_rate_is_rate_limited, .init = setup, .fini = teardown)
{
    hello(a, 1, 555);
    int64_t now = ts_clock_mono_us();
    for (uint64_t seq = 1; seq <= 20; seq++) {
        sync_at(a, seq, 1, 2, now);
        cr_assert_eq(fake_last(&la)->type, TS_SYNC_REPLY, "a second's worth at once (%d)", (int) seq);
    }
    sync_at(a, 21, 1, 2, now);
    expect_error(&la, 21, TS_RATE_LIMITED);
    cr_assert_not(la.closed);
    sync_at(a, 22, 1, 2, now + 60000);
    cr_assert_eq(fake_last(&la)->type, TS_SYNC_REPLY, "and more as time passes");
    cr_assert_eq(counted(stats.errors[TS_RATE_LIMITED]), 1);
}

Test(session, an_ack_goes_to_the_shard_and_its_result_to_the_client, .init = setup, .fini = teardown)
{
    hello(a, 1, 555);
    sync_at(a, 2, 1, 2, ts_clock_mono_us());
    int sent = la.nsent;
    ack(a, 99);
    cr_assert_eq(la.nsent, sent, "an ACK of no pending exchange is ignored");
    ack(a, 2);
    const ts_env_t *e = &fake.fwd[fake.nfwd - 1];
    cr_assert_eq(e->kind, TS_ENV_SYNC_ACK);
    cr_assert_eq(e->seq, 2);
    cr_assert_eq(e->t4, 1000);
    cr_assert_eq(e->t5, 1100);
    cr_assert(e->has_client_rtt && e->client_rtt == 777);
    cr_assert(e->t6_t3 >= 0 && e->t6_t3 < 1000000, "t6 - t3 on the gate's monotonic clock");
    cr_assert_eq(fake.nawait, 1);
    cr_assert_eq(fake.await_id, 101);
    cr_assert_eq(fake.await_seq, 2);
    uint8_t body[TS_ENV_REPLY_MAX];
    ts_env_t result = fake_result(101, 555, 2, (ts_sync_result_t) { 30000, 31000, 4000 }, body);
    cr_assert(gate_session_result(a, &result));
    const ts_msg_t *r = fake_last(&la);
    cr_assert_eq(r->type, TS_SYNC_RESULT);
    cr_assert_eq(r->u.sync_result.rtt, 30000);
    cr_assert_eq(r->u.sync_result.srtt, 31000);
    cr_assert_eq(r->u.sync_result.rttvar, 4000);
    cr_assert_not(gate_session_result(a, &result), "one result per exchange");
    cr_assert_eq(counted(stats.late), 1);
    gate_session_expire(a, 2, fake.await_deadline);
    cr_assert_eq(fake_last(&la)->type, TS_SYNC_RESULT, "a result that came leaves its deadline harmless");
}

Test(session, a_result_that_does_not_come_is_unavailable, .init = setup, .fini = teardown)
{
    hello(a, 1, 555);
    sync_at(a, 2, 1, 2, ts_clock_mono_us());
    ack(a, 2);
    gate_session_expire(a, 2, fake.await_deadline + 1);
    cr_assert_eq(fake_last(&la)->type, TS_SYNC_REPLY, "not with another deadline");
    gate_session_expire(a, 2, fake.await_deadline);
    expect_error(&la, 2, TS_UNAVAILABLE);
    uint8_t body[TS_ENV_REPLY_MAX];
    ts_env_t result = fake_result(101, 555, 2, (ts_sync_result_t) { 0 }, body);
    cr_assert_not(gate_session_result(a, &result), "after UNAVAILABLE the result is late");
    cr_assert_not(la.closed);
}

Test(session, an_ack_the_shard_cannot_take_is_unavailable, .init = setup, .fini = teardown)
{
    hello(a, 1, 555);
    sync_at(a, 2, 1, 2, ts_clock_mono_us());
    fake.forward_fails = true;
    ack(a, 2);
    expect_error(&la, 2, TS_UNAVAILABLE);
    fake.forward_fails = false;
    sync_at(a, 3, 1, 2, ts_clock_mono_us());
    ack(a, 3);
    ts_env_t unsent = fake.fwd[fake.nfwd - 1];
    cr_assert_eq(unsent.kind, TS_ENV_SYNC_ACK);
    unsent.player_id = 556;
    gate_session_unsent(a, &unsent);
    cr_assert_eq(fake_last(&la)->type, TS_SYNC_REPLY, "another player's envelope is not this session's");
    unsent.player_id = 555;
    gate_session_unsent(a, &unsent);
    expect_error(&la, 3, TS_UNAVAILABLE);
    cr_assert_eq(counted(stats.errors[TS_UNAVAILABLE]), 2);
}

Test(session, a_result_for_a_replaced_player_is_not_delivered, .init = setup, .fini = teardown)
{
    hello(a, 1, 555);
    sync_at(a, 2, 1, 2, ts_clock_mono_us());
    ack(a, 2);
    hello(b, 1, 555);
    int sent = la.nsent;
    uint8_t body[TS_ENV_REPLY_MAX];
    ts_env_t result = fake_result(101, 555, 2, (ts_sync_result_t) { 0 }, body);
    cr_assert_not(gate_session_result(a, &result));
    cr_assert_eq(la.nsent, sent);
    cr_assert_eq(counted(stats.gone), 1);
}

/* ---- the end ------------------------------------------------------------ */

Test(session, a_clients_bye_closes_and_the_end_tells_the_shard_once, .init = setup, .fini = teardown)
{
    hello(a, 1, 555);
    int sent = la.nsent;
    ts_msg_t bye;
    ts_msg_bye(&bye, 0, "quit");
    tell(a, &bye);
    cr_assert(la.closed);
    cr_assert_eq(la.nsent, sent, "closed without a word");
    gate_session_end(a);
    gate_session_end(a);
    cr_assert_eq(fake.nfwd, 2);
    cr_assert_eq(fake.fwd[1].kind, TS_ENV_CLOSE);
    cr_assert_eq(fake.fwd[1].player_id, 555);
    cr_assert_eq(counted(stats.sessions), 0);
    gate_session_end(b);
    cr_assert_eq(fake.nfwd, 2, "a session that never said HELLO has nothing to close");
}

Test(session, the_gate_says_bye_once, .init = setup, .fini = teardown)
{
    gate_session_bye(a, "shutdown");
    cr_assert_str_eq(fake_last(&la)->u.bye.text, "shutdown");
    cr_assert(la.closed);
    gate_session_bye(a, "shutdown");
    cr_assert_eq(la.nsent, 1);
}

Test(session, a_stream_that_cannot_take_its_answer_is_dropped, .init = setup, .fini = teardown)
{
    hello(a, 1, 555);
    la.refuse_writes = true;
    sync_at(a, 2, 1, 2, ts_clock_mono_us());
    cr_assert(la.dropped);
    cr_assert_eq(counted(stats.stalled), 1);
}

/* ---- UDP ---------------------------------------------------------------- */

Test(session, datagrams_are_answered_by_datagram_and_close_nothing, .init = setup, .fini = teardown)
{
    hello(a, 1, 555);
    uint8_t key[TS_UDP_KEY_BYTES];
    memcpy(key, fake_last(&la)->u.welcome.udp_key, sizeof key);
    cr_assert(gate_session_udp(a));
    const uint8_t msg[] = { 0x93, 0x10, 0x05, 0x01 };
    uint8_t d[64];
    size_t n = ts_udptag_wrap(101, key, msg, sizeof msg, d, sizeof d);
    ts_dgram_t dg;
    cr_assert_eq(ts_dgram_parse(d, n, &dg), 0);
    cr_assert(gate_session_udp_check(a, msg, sizeof msg, dg.tag), "tagged with WELCOME's key");
    d[TS_DGRAM_HEADER - 1] ^= 1;
    cr_assert_not(gate_session_udp_check(a, msg, sizeof msg, dg.tag));

    struct sockaddr_storage from = { .ss_family = AF_INET };
    ts_msg_t sync = { .type = TS_SYNC, .seq = 5 };
    sync.u.sync.t1 = 10;
    int64_t now = ts_clock_mono_us();
    int sent = la.nsent;
    gate_session_datagram(a, &sync, 20, now, &from, sizeof(struct sockaddr_in));
    cr_assert_eq(la.nsent, sent, "nothing on the stream");
    cr_assert_eq(fake.ndgrams, 1);
    cr_assert_eq(fake.dgrams[0].type, TS_SYNC_REPLY);
    cr_assert_eq(fake.dgrams[0].u.sync_reply.t2, 20);
    cr_assert_eq(fake.dgram_session[0], 101);
    ts_msg_t a5 = { .type = TS_SYNC_ACK, .seq = 5 };
    gate_session_datagram(a, &a5, 30, ts_clock_mono_us() + 1000, &from, sizeof(struct sockaddr_in));
    uint8_t body[TS_ENV_REPLY_MAX];
    ts_env_t result = fake_result(101, 555, 5, (ts_sync_result_t) { .rtt = 9 }, body);
    gate_session_result(a, &result);
    cr_assert_eq(fake.dgrams[1].type, TS_SYNC_RESULT, "the way its ACK came");
    cr_assert_eq(fake.dgrams[1].u.sync_result.rtt, 9, "the scene's bytes, as they came");
    for (int i = 0; i < 25; i++)
        gate_session_datagram(a, &sync, 20, now, &from, sizeof(struct sockaddr_in));
    cr_assert_eq(fake.dgrams[fake.ndgrams - 1].type, TS_ERROR);
    cr_assert_eq(fake.dgrams[fake.ndgrams - 1].u.error.code, TS_RATE_LIMITED);
    cr_assert_not(la.closed, "a datagram's ERROR closes nothing");
    cr_assert_eq(la.nsent, sent);
}
