/* tests/test_envelope.c - proto/envelope: every kind round-trips, junk is refused. */
#include <criterion/criterion.h>
#include <string.h>

#include "envelope.h"

Test(envelope, every_kind_round_trips)
{
    ts_env_t all[] = {
        { .kind = TS_ENV_PING, .seq = 9 },
        { .kind = TS_ENV_PONG, .seq = 9 },
        { .kind = TS_ENV_OPEN, .conn = 1ULL << 40, .player_id = 42 },
        { .kind = TS_ENV_CLOSE, .conn = 5, .player_id = 42 },
        { .kind = TS_ENV_KICK, .conn = 5, .player_id = 42 },
        { .kind = TS_ENV_SYNC, .conn = 5, .player_id = 42, .seq = 3, .t1 = -7, .t2 = INT64_MAX },
        { .kind = TS_ENV_SYNC_REPLY, .conn = 5, .player_id = 42, .seq = 3, .t1 = -7, .t2 = 8 },
        { .kind = TS_ENV_SYNC_ACK, .conn = 5, .player_id = 42, .seq = 3, .t4 = 1, .t5 = 2, .t6_t3 = 3,
          .has_client_rtt = true, .client_rtt = 4 },
        { .kind = TS_ENV_SYNC_RESULT, .conn = 5, .player_id = 42, .seq = 3, .rtt = -1, .srtt = 0, .rttvar = 0 },
    };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        uint8_t buf[TS_ENV_MAX];
        size_t n = ts_env_encode(&all[i], buf, sizeof buf);
        cr_assert_gt(n, 0);
        ts_env_t back;
        cr_assert_eq(ts_env_decode(buf, n, &back), 0);
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
