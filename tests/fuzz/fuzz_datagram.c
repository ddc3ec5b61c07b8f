/* tests/fuzz/fuzz_datagram.c - libFuzzer target: the UDP datagram header.
 * A datagram that parses must lie within the bytes given and rebuild to
 * the same header. */
#include <stdlib.h>
#include <string.h>

#include "datagram.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
    ts_dgram_t d;
    if (ts_dgram_parse(data, len, &d) < 0) {
        if (len > TS_DGRAM_HEADER && len <= TS_DGRAM_MAX)
            abort();   /* every such length is a datagram */
        return 0;
    }
    if (d.msg != data + TS_DGRAM_HEADER || d.msg_len != len - TS_DGRAM_HEADER || d.tag != data + 8)
        abort();
    uint8_t head[TS_DGRAM_HEADER];
    ts_dgram_put_header(head, d.session_id, d.tag);
    if (memcmp(head, data, TS_DGRAM_HEADER) != 0)
        abort();
    return 0;
}
