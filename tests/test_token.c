/* tests/test_token.c - lib/token: PROTOCOL's token layout and checks. */
#include <criterion/criterion.h>
#include <sodium.h>
#include <string.h>

#include "token.h"

static const uint8_t secret[] = "cluster-secret";

Test(token, layout_is_expiry_then_hmac)
{
    uint8_t t[TS_TOKEN_LEN];
    ts_token_make(secret, sizeof secret - 1, 42, 0x0102030405060708ULL, t);
    uint8_t expiry[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    cr_assert_arr_eq(t, expiry, 8);
    uint8_t msg[25] = "ticksync1", mac[32];
    memset(msg + 9, 0, 16);
    msg[16] = 42;
    memcpy(msg + 17, expiry, 8);
    crypto_auth_hmacsha256_state st;
    crypto_auth_hmacsha256_init(&st, secret, sizeof secret - 1);
    crypto_auth_hmacsha256_update(&st, msg, sizeof msg);
    crypto_auth_hmacsha256_final(&st, mac);
    cr_assert_arr_eq(t + 8, mac, 32);
}

Test(token, valid_wrong_expired_and_other_player)
{
    uint8_t t[TS_TOKEN_LEN];
    ts_token_make(secret, sizeof secret - 1, 42, 2000, t);
    cr_assert_eq(ts_token_check(secret, sizeof secret - 1, 42, t, sizeof t, 1999), 0);
    cr_assert_eq(ts_token_check(secret, sizeof secret - 1, 42, t, sizeof t, 2000), -1, "expired");
    cr_assert_eq(ts_token_check(secret, sizeof secret - 1, 43, t, sizeof t, 1999), -1, "other player");
    cr_assert_eq(ts_token_check((const uint8_t *) "other", 5, 42, t, sizeof t, 1999), -1, "other secret");
    cr_assert_eq(ts_token_check(secret, sizeof secret - 1, 42, t, 39, 1999), -1, "short");
    t[20] ^= 1;
    cr_assert_eq(ts_token_check(secret, sizeof secret - 1, 42, t, sizeof t, 1999), -1, "tampered");
}
