/* tests/test_msg.c - proto/msg: round trips, byte-exact vectors (worked out
 * from PROTOCOL.md and checked once against python3-msgpack), and every way
 * a message can be wrong. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "msg.h"

static size_t unhex(const char *hex, uint8_t *out)
{
    size_t n = 0;
    for (; hex[0] && hex[1]; hex += 2) {
        unsigned v;
        sscanf(hex, "%2x", &v);
        out[n++] = (uint8_t) v;
    }
    return n;
}

static void expect_bytes(const ts_msg_t *m, const char *hex)
{
    uint8_t want[256], got[256];
    size_t wn = unhex(hex, want), gn = ts_msg_encode(m, got, sizeof got);
    cr_assert_eq(gn, wn, "length %zu, want %zu", gn, wn);
    cr_assert_arr_eq(got, want, wn);
}

Test(msg, sync_encodes_byte_exact)
{
    ts_msg_t m = { .type = TS_SYNC, .seq = 7, .u.sync.t1 = 1000 };
    expect_bytes(&m, "931007cd03e8");
}

Test(msg, hello_with_nil_token_encodes_byte_exact)
{
    ts_msg_t m = { .type = TS_HELLO, .seq = 1, .u.hello = { .version = 1, .player_id = 42 } };
    expect_bytes(&m, "950101012ac0");
}

Test(msg, error_encodes_byte_exact)
{
    ts_msg_t m;
    ts_msg_error(&m, 5, TS_BAD_MESSAGE, NULL);
    expect_bytes(&m, "94200502ab4241445f4d455353414745");
}

Test(msg, sync_reply_encodes_byte_exact)
{
    ts_msg_t m = { .type = TS_SYNC_REPLY, .seq = 7, .u.sync_reply = { -1, 1700000000000000, 1700000000000250 } };
    /* t3 last and fixed width (d3: int 64), so it can be stamped late */
    expect_bytes(&m, "951107ffcf00060a24181e4000d300060a24181e40fa");
}

Test(msg, sync_reply_t3_can_be_stamped_into_the_encoded_bytes)
{
    ts_msg_t m = { .type = TS_SYNC_REPLY, .seq = 300, .u.sync_reply = { 5, 6, 0 } }, got;
    uint8_t buf[64];
    size_t n = ts_msg_encode(&m, buf, sizeof buf);
    int64_t stamps[] = { 1700000000000250, -2, 0, INT64_MAX, INT64_MIN };
    for (size_t i = 0; i < sizeof stamps / sizeof stamps[0]; i++) {
        ts_msg_set_t3(buf + n, stamps[i]);
        cr_assert_eq(ts_msg_decode(buf, n, TS_FROM_SERVER, &got), TS_OK);
        cr_assert_eq(got.u.sync_reply.t3, stamps[i]);
        cr_assert_eq(got.u.sync_reply.t2, 6);
        cr_assert_eq(got.seq, 300);
    }
}

Test(msg, sync_ack_with_client_values_encodes_byte_exact)
{
    ts_msg_t m = { .type = TS_SYNC_ACK, .seq = 9,
                   .u.sync_ack = { .t4 = 100, .t5 = 150, .has_client_rtt = true, .client_rtt = -5,
                                   .has_client_offset = true, .client_offset = 20 } };
    expect_bytes(&m, "96120964cc96fb14");
}

Test(msg, sync_result_bye_welcome_encode_byte_exact)
{
    ts_msg_t r = { .type = TS_SYNC_RESULT, .seq = 9, .u.sync_result = { -1, 0, 0 } };
    expect_bytes(&r, "951309ff0000");
    ts_msg_t b;
    ts_msg_bye(&b, 0, "replaced");
    expect_bytes(&b, "937f00a87265706c61636564");
    ts_msg_t w = { .type = TS_WELCOME, .seq = 1, .u.welcome = { .version = 1, .session_id = 258, .server_time = -2, .sync_interval_ms = 1000 } };
    expect_bytes(&w, "97020101cd0102fecd03e8c0");
}

static void round_trip(const ts_msg_t *m, ts_dir_t dir)
{
    uint8_t buf[TS_FRAME_MAX];
    size_t n = ts_msg_encode(m, buf, sizeof buf);
    cr_assert_gt(n, 0);
    ts_msg_t back;
    cr_assert_eq(ts_msg_decode(buf, n, dir, &back), TS_OK, "type %llu", (unsigned long long) m->type);
    cr_assert_eq(back.type, m->type);
    cr_assert_eq(back.seq, m->seq);
    cr_assert_eq(memcmp(&back.u, &m->u, sizeof back.u), 0, "type %llu differs", (unsigned long long) m->type);
}

Test(msg, every_message_round_trips)
{
    ts_msg_t m;
    memset(&m, 0, sizeof m);
    m.type = TS_HELLO; m.seq = UINT64_MAX;
    m.u.hello = (ts_hello_t) { .version = 1, .player_id = UINT64_MAX, .has_token = true, .token_len = 40 };
    memset(m.u.hello.token, 0xab, 40);
    round_trip(&m, TS_FROM_CLIENT);
    memset(&m, 0, sizeof m);
    m.type = TS_WELCOME; m.seq = 3;
    m.u.welcome = (ts_welcome_t) { .version = 1, .session_id = 99, .server_time = INT64_MAX, .sync_interval_ms = 5000, .has_udp_key = true };
    memset(m.u.welcome.udp_key, 7, 16);
    round_trip(&m, TS_FROM_SERVER);
    memset(&m, 0, sizeof m);
    m.type = TS_SYNC; m.u.sync.t1 = INT64_MIN;
    round_trip(&m, TS_FROM_CLIENT);
    memset(&m, 0, sizeof m);
    m.type = TS_SYNC_REPLY; m.u.sync_reply = (ts_sync_reply_t) { 1, 2, 3 };
    round_trip(&m, TS_FROM_SERVER);
    memset(&m, 0, sizeof m);
    m.type = TS_SYNC_ACK; m.u.sync_ack = (ts_sync_ack_t) { .t4 = 10, .t5 = 20 };
    round_trip(&m, TS_FROM_CLIENT);
    m.u.sync_ack.has_client_rtt = true; m.u.sync_ack.client_rtt = 30;
    round_trip(&m, TS_FROM_CLIENT);
    memset(&m, 0, sizeof m);
    m.type = TS_SYNC_RESULT; m.u.sync_result = (ts_sync_result_t) { 5, 6, 7 };
    round_trip(&m, TS_FROM_SERVER);
    ts_msg_error(&m, 11, TS_TOO_LARGE, "too large");
    round_trip(&m, TS_FROM_SERVER);
    memset(&m, 0, sizeof m);
    ts_msg_bye(&m, 0, "shutdown");
    round_trip(&m, TS_FROM_CLIENT);
    round_trip(&m, TS_FROM_SERVER);
}

static ts_error_t decode_hex(const char *hex, ts_msg_t *m)
{
    uint8_t buf[256];
    size_t n = unhex(hex, buf);
    return ts_msg_decode(buf, n, TS_FROM_CLIENT, m);
}

Test(msg, any_integer_width_is_accepted)
{
    ts_msg_t m;
    /* [16, seq as uint64 7, t1 as int8 -1] and t1 as int64 5 */
    cr_assert_eq(decode_hex("9310cf0000000000000007ff", &m), TS_OK);
    cr_assert_eq(m.seq, 7);
    cr_assert_eq(m.u.sync.t1, -1);
    cr_assert_eq(decode_hex("931001d30000000000000005", &m), TS_OK);
    cr_assert_eq(m.u.sync.t1, 5);
}

Test(msg, trailing_elements_are_ignored)
{
    ts_msg_t m;
    cr_assert_eq(decode_hex("951001cd03e8c0a178", &m), TS_OK);  /* [16,1,1000,nil,"x"] */
    cr_assert_eq(m.u.sync.t1, 1000);
}

Test(msg, not_one_msgpack_value_is_bad_frame)
{
    ts_msg_t m;
    cr_assert_eq(decode_hex("931007", &m), TS_BAD_FRAME);          /* truncated array */
    cr_assert_eq(decode_hex("93100705" "01", &m), TS_BAD_FRAME);   /* two values */
    cr_assert_eq(decode_hex("c1", &m), TS_BAD_FRAME);              /* reserved byte */
    cr_assert_eq(m.seq, 0);
}

Test(msg, wrong_shapes_are_bad_message_and_keep_seq)
{
    ts_msg_t m;
    cr_assert_eq(decode_hex("a3616263", &m), TS_BAD_MESSAGE);        /* not an array */
    cr_assert_eq(decode_hex("90", &m), TS_BAD_MESSAGE);              /* [] */
    cr_assert_eq(decode_hex("9110", &m), TS_BAD_MESSAGE);            /* [16] no seq */
    cr_assert_eq(decode_hex("9263" "05", &m), TS_BAD_MESSAGE);       /* unknown type 99 */
    cr_assert_eq(m.seq, 5);
    cr_assert_eq(decode_hex("931105" "01", &m), TS_BAD_MESSAGE);     /* SYNC_REPLY from a client */
    cr_assert_eq(m.seq, 5);
    cr_assert_eq(decode_hex("9210" "06", &m), TS_BAD_MESSAGE);       /* SYNC without t1 */
    cr_assert_eq(m.seq, 6);
    cr_assert_eq(decode_hex("931006a178", &m), TS_BAD_MESSAGE);      /* t1 a string */
    cr_assert_eq(decode_hex("931006ca3f800000", &m), TS_BAD_MESSAGE); /* t1 a float */
    cr_assert_eq(decode_hex("931006cfffffffffffffffff", &m), TS_BAD_MESSAGE); /* t1 past int64 */
    cr_assert_eq(decode_hex("93ff06" "01", &m), TS_BAD_MESSAGE);     /* negative type */
    cr_assert_eq(decode_hex("9310ff" "01", &m), TS_BAD_MESSAGE);     /* negative seq */
    cr_assert_eq(m.seq, 0);
}

Test(msg, hello_rules)
{
    ts_msg_t m;
    cr_assert_eq(decode_hex("9501010100c0", &m), TS_BAD_MESSAGE);        /* player_id 0 */
    cr_assert_eq(decode_hex("9501010102a178", &m), TS_BAD_MESSAGE);      /* token a str */
    cr_assert_eq(decode_hex("950101022ac0", &m), TS_UNSUPPORTED_VERSION); /* version 2 */
    cr_assert_eq(decode_hex("950101002ac0", &m), TS_UNSUPPORTED_VERSION); /* version 0 */
    cr_assert_eq(decode_hex("9401010101", &m), TS_BAD_MESSAGE);          /* token missing */
    cr_assert_eq(decode_hex("950101012ac4020102", &m), TS_OK);           /* 2-byte token */
    cr_assert_eq(m.u.hello.token_len, 2);
}

Test(msg, sync_ack_optional_fields)
{
    ts_msg_t m;
    cr_assert_eq(decode_hex("94120101" "02", &m), TS_OK);
    cr_assert(!m.u.sync_ack.has_client_rtt);
    cr_assert_eq(decode_hex("9612010102c003", &m), TS_OK);   /* nil rtt, offset 3 */
    cr_assert(!m.u.sync_ack.has_client_rtt);
    cr_assert(m.u.sync_ack.has_client_offset);
    cr_assert_eq(m.u.sync_ack.client_offset, 3);
    cr_assert_eq(decode_hex("95120101" "02a178", &m), TS_BAD_MESSAGE);
}

Test(msg, encode_refuses_a_small_buffer)
{
    ts_msg_t m = { .type = TS_SYNC, .seq = 7, .u.sync.t1 = 1000 };
    uint8_t buf[4];
    cr_assert_eq(ts_msg_encode(&m, buf, sizeof buf), 0);
}

Test(msg, hostile_counts_are_refused_before_any_allocation)
{
    ts_msg_t m;
    /* an array32 claiming 16M elements in 6 bytes: msgpack-c would reserve 400 MB */
    cr_assert_eq(decode_hex("dd00ffffff01", &m), TS_BAD_FRAME);
    cr_assert_eq(decode_hex("ddffffffff01", &m), TS_BAD_FRAME);
    cr_assert_eq(decode_hex("df00ffffff0101", &m), TS_BAD_FRAME, "map32");
    cr_assert_eq(decode_hex("9310dc0fff", &m), TS_BAD_FRAME, "nested array16");
    cr_assert_eq(decode_hex("c6ffffffff00", &m), TS_BAD_FRAME, "bin32 longer than the frame");
    cr_assert_eq(decode_hex("dc0003100105", &m), TS_OK, "array16 whose count fits is fine");
    cr_assert_eq(decode_hex("931001d300000000000000", &m), TS_BAD_FRAME, "an int64 cut short");
    cr_assert_eq(decode_hex("931001cd01", &m), TS_BAD_FRAME, "a uint16 cut short");
    cr_assert_eq(decode_hex("931001d3000000000000002a", &m), TS_OK, "an int64 whole");
    cr_assert_eq(m.u.sync.t1, 42);
    cr_assert_eq(m.type, TS_SYNC);
}

/* Found by fuzz_msg under UBSan: msgpack-c gives an empty str or bin no pointer. */
Test(msg, empty_str_and_bin_decode)
{
    ts_msg_t m;
    cr_assert_eq(decode_hex("950100012ac400", &m), TS_OK, "HELLO with a 0-byte token");
    cr_assert(m.u.hello.has_token);
    cr_assert_eq(m.u.hello.token_len, 0);
    uint8_t buf[16];
    size_t n = unhex("94200306a0", buf);
    cr_assert_eq(ts_msg_decode(buf, n, TS_FROM_SERVER, &m), TS_OK, "ERROR with an empty text");
    cr_assert_str_eq(m.u.error.text, "");
}
