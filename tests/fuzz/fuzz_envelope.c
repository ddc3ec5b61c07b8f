/* tests/fuzz/fuzz_envelope.c - libFuzzer target: the gate <-> scene
 * envelope decoder. A scene must survive any bytes a gate (or anyone who
 * reaches its port) sends; what decodes must round-trip. */
#include <stdlib.h>
#include <string.h>

#include "envelope.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
    ts_env_t e, again;
    if (ts_env_decode(data, len, &e) < 0)
        return 0;
    uint8_t buf[TS_ENV_MAX];
    size_t n = ts_env_encode(&e, buf, sizeof buf);
    if (n == 0 || ts_env_decode(buf, n, &again) < 0 || again.kind != e.kind || again.seq != e.seq
        || again.player_id != e.player_id || again.conn != e.conn)
        abort();
    return 0;
}
