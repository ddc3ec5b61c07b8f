/* tests/fuzz/fuzz_envelope.c - libFuzzer target: the gate <-> scene
 * envelope decoder, one envelope and a batch of them. A scene must survive
 * any bytes a gate (or anyone who reaches its port) sends; what decodes
 * must round-trip, and a batch walk must always move forward. */
#include <stdlib.h>
#include <string.h>

#include "envelope.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

static void round_trips(const ts_env_t *e)
{
    ts_env_t again;
    uint8_t buf[TS_ENV_MAX];
    size_t n = ts_env_encode(e, buf, sizeof buf);
    if (n == 0 || ts_env_decode(buf, n, &again) < 0 || again.kind != e->kind || again.seq != e->seq
        || again.player_id != e->player_id || again.conn != e->conn || again.reply_len != e->reply_len
        || (e->reply_len && memcmp(again.reply, e->reply, e->reply_len) != 0))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
    ts_env_t e;
    if (ts_env_decode(data, len, &e) == 0)
        round_trips(&e);
    ts_decoder_t *dec = ts_decoder_new();
    size_t off = 0, before = 0;
    int rc;
    while (dec && (rc = ts_env_next(dec, data, len, &off, &e)) != 0) {
        if (off <= before || off > len)
            abort();
        before = off;
        if (rc == 1)
            round_trips(&e);
    }
    ts_decoder_destroy(&dec);
    return 0;
}
