/* proto/datagram.c - see datagram.h. */
#include "datagram.h"

#include <string.h>

int ts_dgram_parse(const uint8_t *buf, size_t len, ts_dgram_t *out)
{
    if (len <= TS_DGRAM_HEADER || len > TS_DGRAM_MAX)
        return -1;
    uint64_t id = 0;
    for (int i = 0; i < 8; i++)
        id = id << 8 | buf[i];
    out->session_id = id;
    out->tag = buf + 8;
    out->msg = buf + TS_DGRAM_HEADER;
    out->msg_len = len - TS_DGRAM_HEADER;
    return 0;
}

void ts_dgram_put_header(uint8_t *out, uint64_t session_id, const uint8_t tag[TS_DGRAM_TAG])
{
    for (int i = 7; i >= 0; i--) {
        out[i] = (uint8_t) session_id;
        session_id >>= 8;
    }
    memcpy(out + 8, tag, TS_DGRAM_TAG);
}
