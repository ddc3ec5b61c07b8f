/* proto/udptag.c - see udptag.h. */
#include "udptag.h"

#include <sodium.h>
#include <string.h>

#include "datagram.h"

_Static_assert(crypto_shorthash_BYTES == TS_DGRAM_TAG, "SipHash-2-4 tags are 8 bytes");
_Static_assert(crypto_shorthash_KEYBYTES == TS_UDP_KEY_BYTES, "udp_key is 16 bytes");

size_t ts_udptag_wrap(uint64_t session_id, const uint8_t key[TS_UDP_KEY_BYTES], const uint8_t *msg, size_t len,
                      uint8_t *out, size_t cap)
{
    size_t total = TS_DGRAM_HEADER + len;
    if (len == 0 || total > TS_DGRAM_MAX || total > cap)
        return 0;
    uint8_t tag[TS_DGRAM_TAG];
    crypto_shorthash(tag, msg, len, key);
    ts_dgram_put_header(out, session_id, tag);
    memmove(out + TS_DGRAM_HEADER, msg, len);
    return total;
}

bool ts_udptag_check(const uint8_t key[TS_UDP_KEY_BYTES], const uint8_t *msg, size_t len, const uint8_t *tag)
{
    uint8_t want[TS_DGRAM_TAG];
    crypto_shorthash(want, msg, len, key);
    return sodium_memcmp(want, tag, TS_DGRAM_TAG) == 0;
}
