/* lib/token.c - see token.h. libsodium does the HMAC and the comparison. */
#include "token.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>

static void put_be64(uint8_t *out, uint64_t v)
{
    for (int i = 7; i >= 0; i--) {
        out[i] = (uint8_t) v;
        v >>= 8;
    }
}

static void mac(const uint8_t *secret, size_t secret_len, uint64_t player_id, uint64_t expiry,
                uint8_t out[crypto_auth_hmacsha256_BYTES])
{
    uint8_t msg[9 + 8 + 8] = "ticksync1";
    put_be64(msg + 9, player_id);
    put_be64(msg + 17, expiry);
    crypto_auth_hmacsha256_state st;
    crypto_auth_hmacsha256_init(&st, secret, secret_len);
    crypto_auth_hmacsha256_update(&st, msg, sizeof msg);
    crypto_auth_hmacsha256_final(&st, out);
}

void ts_token_make(const uint8_t *secret, size_t secret_len, uint64_t player_id, uint64_t expiry,
                   uint8_t out[TS_TOKEN_LEN])
{
    put_be64(out, expiry);
    mac(secret, secret_len, player_id, expiry, out + 8);
}

int ts_token_check(const uint8_t *secret, size_t secret_len, uint64_t player_id,
                   const uint8_t *token, size_t token_len, int64_t now)
{
    if (token_len != TS_TOKEN_LEN)
        return -1;
    uint64_t expiry = 0;
    for (int i = 0; i < 8; i++)
        expiry = expiry << 8 | token[i];
    uint8_t want[crypto_auth_hmacsha256_BYTES];
    mac(secret, secret_len, player_id, expiry, want);
    int bad = crypto_verify_32(want, token + 8);
    if (bad || now < 0 || expiry <= (uint64_t) now)
        return -1;
    return 0;
}

uint8_t *ts_token_read_secret(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    uint8_t *buf = malloc(4096);
    size_t n = buf ? fread(buf, 1, 4095, f) : 0;
    fclose(f);
    if (n > 0 && buf[n - 1] == '\n')
        n--;
    if (n == 0) {
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}
