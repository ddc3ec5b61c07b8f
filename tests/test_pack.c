/* tests/test_pack.c - proto/pack's unpacker (msgpack-c's parser with
 * callbacks that keep the root array's elements in a flat array) against
 * msgpack-c's own msgpack_unpack: on every message and envelope the
 * protocol has, and on a few hundred thousand of them mutated (bytes
 * changed, cut, inserted, nested containers spliced in), both accept the
 * same inputs and give the same elements. Containers are limited to
 * fixarray and fixmap here, so that msgpack_unpack's reserving from a
 * declared count stays small; the flat unpacker reserves nothing at all
 * (test_msg: hostile counts). */
#include <criterion/criterion.h>
#include <string.h>

#include "envelope.h"
#include "msg.h"
#include "pack.h"
#include "prng.h"

/* Whether two objects read the same to a decoder: same type and value;
 * a container only by its type (decoders never read into one), a str or
 * bin by its bytes. */
static bool same(const msgpack_object *a, const msgpack_object *b)
{
    if (a->type != b->type)
        return false;
    switch (a->type) {
    case MSGPACK_OBJECT_NIL: return true;
    case MSGPACK_OBJECT_BOOLEAN: return a->via.boolean == b->via.boolean;
    case MSGPACK_OBJECT_POSITIVE_INTEGER: return a->via.u64 == b->via.u64;
    case MSGPACK_OBJECT_NEGATIVE_INTEGER: return a->via.i64 == b->via.i64;
    case MSGPACK_OBJECT_FLOAT32: case MSGPACK_OBJECT_FLOAT64:
        return memcmp(&a->via.f64, &b->via.f64, sizeof a->via.f64) == 0;
    case MSGPACK_OBJECT_STR:
        return a->via.str.size == b->via.str.size
            && (a->via.str.size == 0 || memcmp(a->via.str.ptr, b->via.str.ptr, a->via.str.size) == 0);
    case MSGPACK_OBJECT_BIN:
        return a->via.bin.size == b->via.bin.size
            && (a->via.bin.size == 0 || memcmp(a->via.bin.ptr, b->via.bin.ptr, a->via.bin.size) == 0);
    case MSGPACK_OBJECT_EXT:
        return a->via.ext.type == b->via.ext.type && a->via.ext.size == b->via.ext.size
            && (a->via.ext.size == 0 || memcmp(a->via.ext.ptr, b->via.ext.ptr, a->via.ext.size) == 0);
    default: return true;   /* an array or a map */
    }
}

/* Unpacks buf both ways and checks they agree: accepted by both or by
 * neither, and where accepted, the root the same and, for an array, its
 * first TS_PACK_KEEP elements the same (the flat one keeps no more). */
static long accepted;   /* of the inputs agree saw, those both accepted */

static void agree(const uint8_t *buf, size_t len)
{
    msgpack_object keep[TS_PACK_KEEP], flat;
    bool got = ts_pack_one(keep, buf, len, &flat);
    msgpack_zone zone;
    cr_assert(msgpack_zone_init(&zone, 1024));
    msgpack_object ref;
    size_t off = 0;
    bool want = msgpack_unpack((const char *) buf, len, &off, &zone, &ref) == MSGPACK_UNPACK_SUCCESS;
    cr_assert_eq(got, want, "%zu bytes, first 0x%02x: flat %d, msgpack-c %d", len, len ? buf[0] : 0, got, want);
    accepted += got;
    if (got) {
        cr_assert(same(&flat, &ref), "root type %d against %d", flat.type, ref.type);
        if (ref.type == MSGPACK_OBJECT_ARRAY) {
            uint32_t n = ref.via.array.size < TS_PACK_KEEP ? ref.via.array.size : TS_PACK_KEEP;
            cr_assert_eq(flat.via.array.size, n);
            for (uint32_t i = 0; i < n; i++)
                cr_assert(same(&flat.via.array.ptr[i], &ref.via.array.ptr[i]), "element %u", i);
        }
    }
    msgpack_zone_destroy(&zone);
}

/* Every message and envelope the protocol has, encoded. */
static size_t seeds(uint8_t seed[][TS_ENV_MAX], size_t *len)
{
    ts_msg_t msgs[] = {
        { .type = TS_HELLO, .seq = 1, .u.hello = { .version = 1, .player_id = 42, .has_token = true, .token_len = 3 } },
        { .type = TS_HELLO, .seq = 1, .u.hello = { .version = 1, .player_id = 1ULL << 40 } },
        { .type = TS_WELCOME, .seq = 1, .u.welcome = { .version = 1, .session_id = 7, .server_time = -5,
                                                       .sync_interval_ms = 1000, .has_udp_key = true } },
        { .type = TS_SYNC, .seq = 300, .u.sync.t1 = 1700000000000000 },
        { .type = TS_SYNC_REPLY, .seq = 300, .u.sync_reply = { .t1 = 1, .t2 = -2, .t3 = INT64_MAX } },
        { .type = TS_SYNC_ACK, .seq = 70000, .u.sync_ack = { .t4 = 4, .t5 = 5, .has_client_rtt = true, .client_rtt = 9,
                                                             .has_client_offset = true, .client_offset = -9 } },
        { .type = TS_SYNC_RESULT, .seq = 2, .u.sync_result = { .rtt = 40000, .srtt = 41000, .rttvar = 300 } },
        { .type = TS_ERROR, .seq = 2, .u.error = { .code = 6, .text = "rate limited" } },
        { .type = TS_BYE, .seq = 3, .u.bye = { .text = "" } },
    };
    ts_env_t envs[] = {
        { .kind = TS_ENV_PONG, .seq = 10, .flags = TS_ENV_DEGRADED },
        { .kind = TS_ENV_SYNC_ACK, .conn = 5, .player_id = 42, .seq = 3, .t4 = 1, .t5 = 2, .t6_t3 = 3,
          .has_client_rtt = true, .client_rtt = 4 },
        { .kind = TS_ENV_SYNC_RESULT, .conn = 5, .player_id = 42, .seq = 2 },   /* carries msgs' SYNC_RESULT */
    };
    size_t n = 0;
    for (size_t i = 0; i < sizeof msgs / sizeof msgs[0]; i++, n++)
        cr_assert_gt(len[n] = ts_msg_encode(&msgs[i], seed[n], TS_ENV_MAX), 0);
    envs[2].reply = seed[6];
    envs[2].reply_len = len[6];
    for (size_t i = 0; i < sizeof envs / sizeof envs[0]; i++, n++)
        cr_assert_gt(len[n] = ts_env_encode(&envs[i], seed[n], TS_ENV_MAX), 0);
    return n;
}

Test(pack, every_message_unpacks_as_msgpack_c_has_it)
{
    uint8_t seed[16][TS_ENV_MAX];
    size_t len[16], n = seeds(seed, len);
    for (size_t i = 0; i < n; i++)
        agree(seed[i], len[i]);
}

/* A mutation of a seed; containers limited to fixarray and fixmap. */
static size_t mutate(uint64_t *rng, const uint8_t *in, size_t n, uint8_t *out, size_t cap)
{
    static const uint8_t splice[][4] = { { 0x92, 0x01, 0x02 }, { 0x81, 0xa1, 0x6b, 0xc0 }, { 0x90 }, { 0x80 },
                                         { 0xc7, 0x00, 0x05 }, { 0xd4, 0x01, 0x02 }, { 0xca, 0, 0, 0 } };
    static const size_t splice_len[] = { 3, 4, 1, 1, 3, 3, 4 };
    memcpy(out, in, n);
    int edits = 1 + (int) (ts_prng_next(rng) % 4);
    for (int e = 0; e < edits; e++) {
        size_t at = n ? (size_t) (ts_prng_next(rng) % (n + 1)) : 0;
        switch (ts_prng_next(rng) % 4) {
        case 0:   /* a byte changed */
            if (at < n)
                out[at] = (uint8_t) ts_prng_next(rng);
            break;
        case 1:   /* cut */
            n = at;
            break;
        case 2:   /* a byte inserted */
            if (n < cap) {
                memmove(out + at + 1, out + at, n - at);
                out[at] = (uint8_t) ts_prng_next(rng);
                n++;
            }
            break;
        default: {   /* a small container or odd value spliced in */
            size_t k = (size_t) (ts_prng_next(rng) % (sizeof splice_len / sizeof splice_len[0]));
            if (n + splice_len[k] <= cap) {
                memmove(out + at + splice_len[k], out + at, n - at);
                memcpy(out + at, splice[k], splice_len[k]);
                n += splice_len[k];
            }
        }
        }
    }
    for (size_t i = 0; i < n; i++)
        if (out[i] >= 0xdc && out[i] <= 0xdf)
            out[i] = 0x90 | (out[i] & 0x0f);   /* array16/32, map16/32: a fixarray instead */
    return n;
}

Test(pack, mutated_messages_unpack_as_msgpack_c_has_them)
{
    uint8_t seed[16][TS_ENV_MAX], buf[TS_ENV_MAX + 64];
    size_t len[16], n = seeds(seed, len);
    uint64_t rng = 2026;
    for (int i = 0; i < 300000; i++) {
        size_t s = (size_t) (ts_prng_next(&rng) % n);
        agree(buf, mutate(&rng, seed[s], len[s], buf, sizeof buf));
    }
    /* both kinds were met: a test that only saw one would prove little */
    cr_assert(accepted > 10000 && accepted < 290000, "%ld of 300000 accepted", accepted);
}

/* More elements than are kept: the first TS_PACK_KEEP, and the size says
 * as many; a nested container keeps none of its own. */
Test(pack, a_long_array_keeps_its_first_elements)
{
    uint8_t buf[32] = { 0x9f };   /* fixarray of 15 ... */
    size_t n = 1;
    buf[n++] = 0x92;              /* ... whose first is [1, 2] */
    buf[n++] = 0x01;
    buf[n++] = 0x02;
    for (int i = 1; i < 15; i++)
        buf[n++] = (uint8_t) i;
    msgpack_object keep[TS_PACK_KEEP], o;
    cr_assert(ts_pack_one(keep, buf, n, &o));
    cr_assert_eq(o.via.array.size, 15);
    cr_assert_eq(o.via.array.ptr[0].type, MSGPACK_OBJECT_ARRAY);
    cr_assert_eq(o.via.array.ptr[0].via.array.size, 0);
    cr_assert_eq(o.via.array.ptr[14].via.u64, 14);
    uint8_t big[3 + 40] = { 0xdc, 0x00, 40 };   /* array16 of 40 */
    for (int i = 0; i < 40; i++)
        big[3 + i] = (uint8_t) i;
    cr_assert(ts_pack_one(keep, big, sizeof big, &o));
    cr_assert_eq(o.via.array.size, TS_PACK_KEEP);
    cr_assert_eq(o.via.array.ptr[TS_PACK_KEEP - 1].via.u64, TS_PACK_KEEP - 1);
}
