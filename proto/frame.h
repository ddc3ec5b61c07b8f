/* proto/frame.h - incremental TCP frame reader (PROTOCOL.md "Framing").
 *
 * A frame is a 4-byte big-endian length N, then N bytes, 1 <= N <= 4096.
 * Feed the reader bytes split anywhere; it hands out whole frame bodies.
 * The length is judged from the header alone, before any body arrives:
 * 0 is BAD_FRAME, more than TS_FRAME_MAX is TOO_LARGE. */
#ifndef TS_PROTO_FRAME_H
#define TS_PROTO_FRAME_H

#include <stddef.h>
#include <stdint.h>

#define TS_FRAME_HEADER 4

typedef enum {
    TS_FRAME_NEED_MORE = 0,  /* all bytes consumed, no whole frame yet */
    TS_FRAME_READY     = 1,  /* a frame body is available */
} ts_frame_status_t;

typedef struct ts_framer_t ts_framer_t;

/* Returns NULL when out of memory. */
ts_framer_t *ts_framer_new(void);
/* Idempotent; sets *self_p to NULL. */
void ts_framer_destroy(ts_framer_t **self_p);

/* Takes bytes from data[0..len) until a frame is whole or the bytes run out;
 * *consumed says how many it took (call again with the rest). Returns
 * TS_FRAME_READY with *body and *body_len set (valid until the next call, may
 * point into data), TS_FRAME_NEED_MORE, or the negative PROTOCOL code
 * -TS_BAD_FRAME or -TS_TOO_LARGE, after which the reader stays failed. */
int ts_framer_feed(ts_framer_t *self, const uint8_t *data, size_t len, size_t *consumed,
                   const uint8_t **body, size_t *body_len);

/* Bytes of an unfinished frame held inside (header and body). */
size_t ts_framer_pending(const ts_framer_t *self);

/* Writes the 4-byte header for a body of len bytes. */
void ts_frame_put_header(uint8_t *out, uint32_t len);

#endif
