/* tests/fuzz/fuzz_frame.c - libFuzzer target: the TCP frame reader. The
 * same bytes fed whole and fed split at points drawn from the input must
 * give the same frames and the same verdict. */
#include <stdlib.h>
#include <string.h>

#include "frame.h"
#include "msg.h"

typedef struct {
    uint8_t bodies[1 << 16];
    size_t  used, count;
    int     verdict;
} outcome_t;

static void feed_all(const uint8_t *data, size_t len, size_t step, outcome_t *o)
{
    ts_framer_t *f = ts_framer_new();
    memset(o, 0, sizeof *o);
    size_t at = 0;
    while (at < len && o->verdict >= 0) {
        size_t chunk = step && len - at > step ? step : len - at, off = 0;
        while (off < chunk) {
            size_t used, blen;
            const uint8_t *body;
            int rc = ts_framer_feed(f, data + at + off, chunk - off, &used, &body, &blen);
            off += used;
            if (rc < 0) {
                o->verdict = rc;
                break;
            }
            if (rc == TS_FRAME_READY) {
                if (blen == 0 || blen > TS_FRAME_MAX)
                    abort();
                if (o->used + blen <= sizeof o->bodies) {
                    memcpy(o->bodies + o->used, body, blen);
                    o->used += blen;
                }
                o->count++;
            } else if (used == 0) {
                break;
            }
        }
        at += chunk;
    }
    ts_framer_destroy(&f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
    static outcome_t whole, split;
    if (len == 0)
        return 0;
    size_t step = 1 + data[0] % 7;
    feed_all(data + 1, len - 1, 0, &whole);
    feed_all(data + 1, len - 1, step, &split);
    if (whole.count != split.count || whole.verdict != split.verdict || whole.used != split.used
        || memcmp(whole.bodies, split.bodies, whole.used) != 0)
        abort();
    return 0;
}
