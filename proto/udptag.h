/* proto/udptag.h - the UDP datagram tag of PROTOCOL.md "Framing":
 * SipHash-2-4 (libsodium crypto_shorthash) of the message bytes under the
 * session's 16-byte udp_key, and whole datagrams built and checked with it. */
#ifndef TS_PROTO_UDPTAG_H
#define TS_PROTO_UDPTAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "msg.h"   /* TS_UDP_KEY_BYTES, the size of WELCOME's udp_key */

/* Writes session id, tag and msg into out. Returns the datagram's length,
 * or 0 when it would pass TS_DGRAM_MAX or cap. */
size_t ts_udptag_wrap(uint64_t session_id, const uint8_t key[TS_UDP_KEY_BYTES], const uint8_t *msg, size_t len,
                      uint8_t *out, size_t cap);

/* True when tag is msg's under key (compared in constant time). */
bool ts_udptag_check(const uint8_t key[TS_UDP_KEY_BYTES], const uint8_t *msg, size_t len, const uint8_t *tag);

#endif
