/* proto/msg.h - the client messages of PROTOCOL.md version 1, and their
 * msgpack encoding. Pure functions: no I/O, no allocation that outlives a
 * call. Decoding returns the PROTOCOL error code an input deserves. */
#ifndef TS_PROTO_MSG_H
#define TS_PROTO_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "decoder.h"

#define TS_PROTOCOL_VERSION 1
#define TS_FRAME_MAX        4096 /* largest TCP frame body */
#define TS_TOKEN_BYTES      40   /* expiry (8) + HMAC-SHA256 (32) */
#define TS_TOKEN_KEEP       64   /* token bytes kept by the decoder */
#define TS_TEXT_MAX         256  /* ERROR message / BYE reason, NUL included */
#define TS_UDP_KEY_BYTES    16   /* WELCOME's udp_key: a SipHash-2-4 key (udptag.h) */

typedef enum {
    TS_HELLO       = 1,
    TS_WELCOME     = 2,
    TS_SYNC        = 16,
    TS_SYNC_REPLY  = 17,
    TS_SYNC_ACK    = 18,
    TS_SYNC_RESULT = 19,
    TS_ERROR       = 32,
    TS_BYE         = 127,
} ts_msg_type_t;

/* PROTOCOL.md "Errors"; TS_OK is success for every function that returns one. */
typedef enum {
    TS_OK                  = 0,
    TS_BAD_FRAME           = 1,
    TS_BAD_MESSAGE         = 2,
    TS_UNSUPPORTED_VERSION = 3,
    TS_UNAUTHORIZED        = 4,
    TS_NOT_AUTHENTICATED   = 5,
    TS_RATE_LIMITED        = 6,
    TS_UNAVAILABLE         = 7,
    TS_TOO_LARGE           = 8,
} ts_error_t;

/* Who sent the bytes being decoded: a type the other side alone sends is
 * BAD_MESSAGE. */
typedef enum { TS_FROM_CLIENT, TS_FROM_SERVER } ts_dir_t;

typedef struct {
    uint64_t version;
    uint64_t player_id;
    bool     has_token;              /* false for nil */
    size_t   token_len;              /* length on the wire */
    uint8_t  token[TS_TOKEN_KEEP];   /* first TS_TOKEN_KEEP bytes of it */
} ts_hello_t;

typedef struct {
    uint64_t version;
    uint64_t session_id;
    int64_t  server_time;
    uint64_t sync_interval_ms;
    bool     has_udp_key;            /* false: nil, UDP is off */
    uint8_t  udp_key[TS_UDP_KEY_BYTES];
} ts_welcome_t;

typedef struct { int64_t t1; } ts_sync_t;
typedef struct { int64_t t1, t2, t3; } ts_sync_reply_t;

typedef struct {
    int64_t t4, t5;
    bool    has_client_rtt, has_client_offset;
    int64_t client_rtt, client_offset;
} ts_sync_ack_t;

typedef struct { int64_t rtt, srtt, rttvar; } ts_sync_result_t;

typedef struct {
    uint64_t code;
    char     text[TS_TEXT_MAX];      /* NUL-terminated, truncated if longer */
} ts_error_msg_t;

typedef struct { char text[TS_TEXT_MAX]; } ts_bye_t;

typedef struct {
    uint64_t type;                   /* ts_msg_type_t */
    uint64_t seq;
    union {
        ts_hello_t       hello;
        ts_welcome_t     welcome;
        ts_sync_t        sync;
        ts_sync_reply_t  sync_reply;
        ts_sync_ack_t    sync_ack;
        ts_sync_result_t sync_result;
        ts_error_msg_t   error;
        ts_bye_t         bye;
    } u;
} ts_msg_t;

/* Decodes one frame body (exactly one msgpack value) sent in direction dir.
 * Returns TS_OK, TS_BAD_FRAME (not exactly one msgpack value),
 * TS_BAD_MESSAGE or TS_UNSUPPORTED_VERSION. Even on error, out->seq holds
 * the message's seq when it could be read (0 otherwise), so an ERROR reply
 * can echo it. */
ts_error_t ts_msg_decode(const uint8_t *buf, size_t len, ts_dir_t dir, ts_msg_t *out);
/* The same, unpacking into dec's reused zone (no allocation per message). */
ts_error_t ts_msg_decode_with(ts_decoder_t *dec, const uint8_t *buf, size_t len, ts_dir_t dir, ts_msg_t *out);

/* Encodes msg into buf (capacity cap). Returns the byte count, or 0 when it
 * does not fit. A text longer than TS_TEXT_MAX-1 is truncated. */
size_t ts_msg_encode(const ts_msg_t *msg, uint8_t *buf, size_t cap);

/* An encoded SYNC_REPLY ends with t3 as a fixed-width int64 (0xd3 and 8
 * bytes big-endian), so a sender can stamp it at the last moment: this
 * writes t3 into the 8 bytes before end, the end of the encoded reply. */
void ts_msg_set_t3(uint8_t *end, int64_t t3);

/* Shorthands that fill a ts_msg_t. */
void ts_msg_error(ts_msg_t *msg, uint64_t seq, ts_error_t code, const char *text);
void ts_msg_bye(ts_msg_t *msg, uint64_t seq, const char *reason);

/* Name of an error code ("BAD_FRAME"), "UNKNOWN" otherwise. */
const char *ts_error_name(uint64_t code);
/* Name of a message type ("SYNC_ACK"), "UNKNOWN" otherwise. */
const char *ts_msg_type_name(uint64_t type);

#endif
