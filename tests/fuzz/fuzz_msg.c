/* tests/fuzz/fuzz_msg.c - libFuzzer target: the client message decoder,
 * both directions. Whatever decodes must encode, and decode again to the
 * same message. */
#include <stdlib.h>
#include <string.h>

#include "msg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
    for (int dir = 0; dir < 2; dir++) {
        ts_msg_t m, again;
        ts_error_t rc = ts_msg_decode(data, len, (ts_dir_t) dir, &m);
        if (rc != TS_OK && rc != TS_BAD_FRAME && rc != TS_BAD_MESSAGE && rc != TS_UNSUPPORTED_VERSION)
            abort();
        if (rc != TS_OK)
            continue;
        uint8_t buf[TS_FRAME_MAX + 64];
        size_t n = ts_msg_encode(&m, buf, sizeof buf);
        if (n == 0 || ts_msg_decode(buf, n, (ts_dir_t) dir, &again) != TS_OK || again.type != m.type
            || again.seq != m.seq)
            abort();
    }
    return 0;
}
