/* proto/pack.h - shared msgpack plumbing of proto/: a packer that writes into
 * a caller's fixed buffer, and typed readers of msgpack objects. Private to
 * proto/. */
#ifndef TS_PROTO_PACK_H
#define TS_PROTO_PACK_H

#include <msgpack.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "decoder.h"

typedef struct {
    uint8_t *buf;
    size_t   cap;
    size_t   len;
    bool     overflow;
} ts_fixbuf_t;

/* How many of a message's elements are kept: the decoders read at most
 * the first 9 (an envelope's), the rest only counts up to this. */
#define TS_PACK_KEEP 16

/* The decoder (decoder.h): where a message's elements are kept. */
struct ts_decoder_t {
    msgpack_object keep[TS_PACK_KEEP];
};

/* Unpacks exactly one msgpack value filling buf with msgpack-c's parser
 * (pack.c): an array's first TS_PACK_KEEP elements into keep, its size
 * as many as are kept; a nested container or a map has none; strings and
 * bins point into buf. Nothing is allocated, whatever a header claims.
 * True on success; the object lives as long as keep and buf. */
bool ts_pack_one(msgpack_object *keep, const uint8_t *buf, size_t len, msgpack_object *obj);

/* Unpacks the one msgpack value at buf[*off..len) likewise and moves *off
 * past it; more values may follow. True on success. */
bool ts_pack_next(msgpack_object *keep, const uint8_t *buf, size_t len, size_t *off, msgpack_object *obj);

/* For an encoder over a ts_fixbuf_t: everything it calls inlined into it
 * (msgpack-c's pack functions and ts_fixbuf_write), so the packer's
 * callback is a known function and each token a few plain stores, whatever
 * the link-time inliner's budget decides for the rest of the program. Not
 * where the build asks for size (-Os, -Oz: the browser's module, where it
 * made ts_msg_encode ten times larger). */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(__OPTIMIZE_SIZE__)
#define TS_PACK_FLAT __attribute__((flatten))
#else
#define TS_PACK_FLAT
#endif

/* msgpack_packer write callback over a ts_fixbuf_t. Inline, so that an
 * encoder whose packer never leaves it can have the call (one a msgpack
 * token, 1-9 bytes) and its copy folded into plain stores. */
static inline int ts_fixbuf_write(void *data, const char *bytes, size_t len)
{
    ts_fixbuf_t *fb = data;
    if (fb->overflow || len > fb->cap - fb->len) {
        fb->overflow = true;
        return -1;
    }
    memcpy(fb->buf + fb->len, bytes, len);
    fb->len += len;
    return 0;
}

/* An optional int64: the value when has, else nil. */
static inline void ts_pack_opt_i64(msgpack_packer *pk, bool has, int64_t v)
{
    if (has)
        msgpack_pack_int64(pk, v);
    else
        msgpack_pack_nil(pk);
}

/* Readers: true when obj has the wanted type and range. */
bool ts_obj_u64(const msgpack_object *obj, uint64_t *out);
bool ts_obj_i64(const msgpack_object *obj, int64_t *out);
/* An optional int64: nil (*has false) or an integer in range (*has true). */
bool ts_obj_opt_i64(const msgpack_object *obj, bool *has, int64_t *out);

#endif
