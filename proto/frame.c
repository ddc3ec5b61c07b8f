/* proto/frame.c - see frame.h.
 *
 * Whole frames that arrive in one read are handed out in place, with no
 * copy. Only a frame split across reads is gathered, into a buffer sized to
 * that frame and released once it has been handed out, so an idle
 * connection holds no body buffer. */
#include "frame.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"

struct ts_framer_t {
    uint8_t  header[TS_FRAME_HEADER];
    size_t   header_have;
    uint8_t *body;         /* gathered body of a split frame, or NULL */
    size_t   body_len;     /* length from the header, 0 until known */
    size_t   body_have;
    bool     handed_out;   /* body was returned; free it on the next call */
    int      failed;       /* sticky negative error code */
};

ts_framer_t *ts_framer_new(void)
{
    return calloc(1, sizeof(ts_framer_t));
}

void ts_framer_destroy(ts_framer_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    free((*self_p)->body);
    free(*self_p);
    *self_p = NULL;
}

static uint32_t read_be32(const uint8_t *p)
{
    return (uint32_t) p[0] << 24 | (uint32_t) p[1] << 16 | (uint32_t) p[2] << 8 | p[3];
}

void ts_frame_put_header(uint8_t *out, uint32_t len)
{
    out[0] = (uint8_t) (len >> 24);
    out[1] = (uint8_t) (len >> 16);
    out[2] = (uint8_t) (len >> 8);
    out[3] = (uint8_t) len;
}

static int check_length(uint32_t n)
{
    if (n == 0)
        return -TS_BAD_FRAME;
    if (n > TS_FRAME_MAX)
        return -TS_TOO_LARGE;
    return 0;
}

static void reset(ts_framer_t *self)
{
    free(self->body);
    self->body = NULL;
    self->body_len = self->body_have = self->header_have = 0;
    self->handed_out = false;
}

int ts_framer_feed(ts_framer_t *self, const uint8_t *data, size_t len, size_t *consumed,
                   const uint8_t **body, size_t *body_len)
{
    *consumed = 0;
    if (self->failed)
        return self->failed;
    if (self->handed_out)
        reset(self);

    /* Fast path: nothing held, a whole frame at the front of data. */
    if (self->header_have == 0 && len >= TS_FRAME_HEADER) {
        uint32_t n = read_be32(data);
        int rc = check_length(n);
        if (rc < 0)
            return self->failed = rc;
        if (len - TS_FRAME_HEADER >= n) {
            *consumed = TS_FRAME_HEADER + n;
            *body = data + TS_FRAME_HEADER;
            *body_len = n;
            return TS_FRAME_READY;
        }
    }

    size_t used = 0;
    while (self->header_have < TS_FRAME_HEADER && used < len)
        self->header[self->header_have++] = data[used++];
    if (self->header_have < TS_FRAME_HEADER) {
        *consumed = used;
        return TS_FRAME_NEED_MORE;
    }
    if (!self->body) {
        uint32_t n = read_be32(self->header);
        int rc = check_length(n);
        if (rc < 0) {
            *consumed = used;
            return self->failed = rc;
        }
        self->body = malloc(n);
        if (!self->body) {
            *consumed = used;
            return self->failed = -TS_BAD_FRAME;
        }
        self->body_len = n;
    }
    size_t take = self->body_len - self->body_have;
    if (take > len - used)
        take = len - used;
    memcpy(self->body + self->body_have, data + used, take);
    self->body_have += take;
    *consumed = used + take;
    if (self->body_have < self->body_len)
        return TS_FRAME_NEED_MORE;
    self->handed_out = true;
    *body = self->body;
    *body_len = self->body_len;
    return TS_FRAME_READY;
}

size_t ts_framer_pending(const ts_framer_t *self)
{
    if (self->handed_out)
        return 0;
    return self->header_have + self->body_have;
}
