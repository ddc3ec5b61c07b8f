/* tests/test_envelope.c - proto/envelope: every kind round-trips, junk is refused. */
#include <criterion/criterion.h>
#include <string.h>

#include "envelope.h"

Test(envelope, every_kind_round_trips)
{
    static const uint8_t reply[] = { 0x95, 0x13, 0x03, 0xff, 0x00, 0x00 };   /* a SYNC_RESULT, as the scene encodes it */
    ts_env_t all[] = {
        { .kind = TS_ENV_PING, .seq = 9 },
        { .kind = TS_ENV_PONG, .seq = 9 },
        { .kind = TS_ENV_PONG, .seq = 10, .flags = TS_ENV_DEGRADED },
        { .kind = TS_ENV_OPEN, .conn = 1ULL << 40, .player_id = 42 },
        { .kind = TS_ENV_CLOSE, .conn = 5, .player_id = 42 },
        { .kind = TS_ENV_KICK, .conn = 5, .player_id = 42 },
        { .kind = TS_ENV_HELD, .conn = 5, .player_id = 42 },
        { .kind = TS_ENV_SYNC, .conn = 5, .player_id = 42, .seq = 3, .t1 = -7, .t2 = INT64_MAX },
        { .kind = TS_ENV_SYNC_ACK, .conn = 5, .player_id = 42, .seq = 3, .t4 = 1, .t5 = 2, .t6_t3 = 3,
          .has_client_rtt = true, .client_rtt = 4 },
        { .kind = TS_ENV_SYNC_RESULT, .conn = 5, .player_id = 42, .seq = 3, .reply = reply, .reply_len = sizeof reply },
    };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        uint8_t buf[TS_ENV_MAX];
        size_t n = ts_env_encode(&all[i], buf, sizeof buf);
        cr_assert_gt(n, 0);
        ts_env_t back;
        cr_assert_eq(ts_env_decode(buf, n, &back), 0);
        if (back.reply) {   /* a reply points into buf: its bytes are compared */
            cr_assert_eq(back.reply_len, all[i].reply_len);
            cr_assert_eq(memcmp(back.reply, all[i].reply, back.reply_len), 0);
            cr_assert(back.reply >= buf && back.reply + back.reply_len <= buf + n);
            back.reply = all[i].reply;
        }
        cr_assert_eq(memcmp(&back, &all[i], sizeof back), 0, "kind %llu", (unsigned long long) all[i].kind);
    }
}

Test(envelope, junk_is_refused)
{
    uint8_t junk[][8] = { { 0x90 }, { 0x94, 0x63, 0, 0, 0 }, { 0x94, 0x10, 0, 0, 0 }, { 0xc1 } };
    size_t lens[] = { 1, 5, 5, 1 };
    for (size_t i = 0; i < 4; i++) {
        ts_env_t e;
        cr_assert_eq(ts_env_decode(junk[i], lens[i], &e), -1, "case %zu", i);
    }
    ts_env_t e;
    cr_assert_eq(ts_env_decode(junk[0], 0, &e), -1);
}

Test(envelope, a_sync_result_carries_a_bounded_reply_and_nothing_else)
{
    uint8_t body[TS_ENV_REPLY_MAX + 1] = { 0 }, buf[TS_ENV_MAX];
    ts_env_t e = { .kind = TS_ENV_SYNC_RESULT, .conn = 5, .player_id = 42, .seq = 3, .reply = body,
                   .reply_len = TS_ENV_REPLY_MAX };
    size_t n = ts_env_encode(&e, buf, sizeof buf);
    cr_assert_gt(n, 0, "the longest reply fits an envelope");
    ts_env_t back;
    cr_assert_eq(ts_env_decode(buf, n, &back), 0);
    cr_assert_eq(back.reply_len, TS_ENV_REPLY_MAX);
    e.reply_len++;
    cr_assert_eq(ts_env_encode(&e, buf, sizeof buf), 0, "a longer one is not encoded");
    /* nor decoded: [19, 5, 42, 3, bin8 of 65 zero bytes] */
    uint8_t longer[8 + TS_ENV_REPLY_MAX + 1] = { 0x95, 0x13, 0x05, 0x2a, 0x03, 0xc4, TS_ENV_REPLY_MAX + 1 };
    cr_assert_eq(ts_env_decode(longer, sizeof longer - 1, &back), -1);
    longer[6] = TS_ENV_REPLY_MAX;
    cr_assert_eq(ts_env_decode(longer, sizeof longer - 2, &back), 0);
    e.reply_len = 0;
    cr_assert_eq(ts_env_encode(&e, buf, sizeof buf), 0, "nor an empty one");
    const uint8_t empty[] = { 0x95, 0x13, 0x05, 0x2a, 0x03, 0xc4, 0x00 };
    cr_assert_eq(ts_env_decode(empty, sizeof empty, &back), -1);
    /* the form before 2026-11-26, rtt, srtt and rttvar as integers, is not one */
    const uint8_t ints[] = { 0x97, 0x13, 0x05, 0x2a, 0x03, 0x01, 0x02, 0x03 };
    cr_assert_eq(ts_env_decode(ints, sizeof ints, &back), -1);
}

Test(envelope, a_batch_carries_envelopes_back_to_back_until_full)
{
    uint8_t buf[256];
    size_t len = 0, count = 0;
    ts_env_t e = { .kind = TS_ENV_SYNC, .conn = 5, .player_id = 42, .t1 = -7, .t2 = INT64_MAX };
    for (e.seq = 1; ts_env_append(buf, sizeof buf, &len, &e); e.seq++)
        count++;
    cr_assert_gt(count, 3);
    cr_assert_leq(len, sizeof buf);
    size_t full = len;
    cr_assert_not(ts_env_append(buf, sizeof buf, &len, &e), "a full batch refuses");
    cr_assert_eq(len, full, "and writes nothing");

    ts_decoder_t *dec = ts_decoder_new();
    size_t off = 0, seen = 0;
    ts_env_t back;
    while (ts_env_next(dec, buf, len, &off, &back) == 1) {
        seen++;
        cr_assert_eq(back.seq, seen);
        cr_assert_eq(back.t2, INT64_MAX);
    }
    cr_assert_eq(seen, count);
    cr_assert_eq(off, len);
    ts_decoder_destroy(&dec);
}

Test(envelope, a_batch_stops_at_the_first_bad_envelope)
{
    uint8_t buf[256];
    size_t len = 0;
    ts_env_t e = { .kind = TS_ENV_OPEN, .conn = 1, .player_id = 2 };
    cr_assert(ts_env_append(buf, sizeof buf, &len, &e));
    buf[len++] = 0xc1;   /* never used by msgpack */
    cr_assert(ts_env_append(buf, sizeof buf, &len, &e));
    ts_decoder_t *dec = ts_decoder_new();
    size_t off = 0;
    ts_env_t back;
    cr_assert_eq(ts_env_next(dec, buf, len, &off, &back), 1);
    cr_assert_eq(ts_env_next(dec, buf, len, &off, &back), -1);
    cr_assert_eq(ts_env_next(dec, buf, len, &off, &back), 0, "nothing after the bad one is trusted");

    size_t cut = 0;   /* a batch cut short inside its last envelope */
    len = 0;
    cr_assert(ts_env_append(buf, sizeof buf, &len, &e));
    cr_assert(ts_env_append(buf, sizeof buf, &len, &e));
    cr_assert_eq(ts_env_next(dec, buf, len - 1, &cut, &back), 1);
    cr_assert_eq(ts_env_next(dec, buf, len - 1, &cut, &back), -1);
    ts_decoder_destroy(&dec);
}

/* A PONG from a scene that sends no flags (before 2026-11-25) is a PONG
 * with flags 0, and one whose flags are not an integer is refused. */
Test(envelope, a_pong_without_flags_is_not_degraded)
{
    const uint8_t old[] = { 0x94, 0x02, 0x00, 0x00, 0x07 }, bad[] = { 0x95, 0x02, 0x00, 0x00, 0x07, 0xc0 };
    ts_env_t e;
    cr_assert_eq(ts_env_decode(old, sizeof old, &e), 0);
    cr_assert_eq(e.kind, TS_ENV_PONG);
    cr_assert_eq(e.seq, 7);
    cr_assert_eq(e.flags, 0);
    cr_assert_eq(ts_env_decode(bad, sizeof bad, &e), -1);
}
