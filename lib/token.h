/* lib/token.h - login tokens (PROTOCOL.md "Sessions"): expiry (uint64
 * big-endian Unix seconds) . HMAC-SHA256(secret, "ticksync1" . player_id
 * (8 bytes big-endian) . expiry (8 bytes big-endian)). */
#ifndef TS_LIB_TOKEN_H
#define TS_LIB_TOKEN_H

#include <stddef.h>
#include <stdint.h>

#define TS_TOKEN_LEN 40

/* Writes the token for player_id valid until expiry into out. */
void ts_token_make(const uint8_t *secret, size_t secret_len, uint64_t player_id, uint64_t expiry,
                   uint8_t out[TS_TOKEN_LEN]);

/* Returns 0 when token is player_id's, unexpired at now (Unix seconds), and
 * signed with secret; -1 otherwise. The MAC comparison is constant-time. */
int ts_token_check(const uint8_t *secret, size_t secret_len, uint64_t player_id,
                   const uint8_t *token, size_t token_len, int64_t now);

/* Reads a secret file: its bytes (at most 4095), one trailing newline
 * dropped. Returns a malloc'd buffer (caller frees), NUL-terminated so a text
 * secret is also a string, and its length; NULL when the file cannot be read
 * or is empty. */
uint8_t *ts_token_read_secret(const char *path, size_t *len);

#endif
