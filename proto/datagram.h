/* proto/datagram.h - the UDP datagram layout (PROTOCOL.md "Framing"):
 * session_id (8 bytes big-endian) . tag (8 bytes) . message (msgpack),
 * at most 1200 bytes in all. Computing and checking the tag (SipHash-2-4
 * under udp_key) is lib/'s job; this only splits and joins. */
#ifndef TS_PROTO_DATAGRAM_H
#define TS_PROTO_DATAGRAM_H

#include <stddef.h>
#include <stdint.h>

#define TS_DGRAM_HEADER 16
#define TS_DGRAM_TAG    8
#define TS_DGRAM_MAX    1200

typedef struct {
    uint64_t       session_id;
    const uint8_t *tag;        /* TS_DGRAM_TAG bytes inside the datagram */
    const uint8_t *msg;        /* the message, inside the datagram */
    size_t         msg_len;
} ts_dgram_t;

/* Splits a datagram. Returns 0, or -1 when it is shorter than the header
 * plus one byte of message, or longer than TS_DGRAM_MAX. */
int ts_dgram_parse(const uint8_t *buf, size_t len, ts_dgram_t *out);

/* Writes the header; the message goes at out + TS_DGRAM_HEADER. */
void ts_dgram_put_header(uint8_t *out, uint64_t session_id, const uint8_t tag[TS_DGRAM_TAG]);

#endif
