/* proto/pack.h - shared msgpack plumbing of proto/: a packer that writes into
 * a caller's fixed buffer, and typed readers of msgpack objects. Private to
 * proto/. */
#ifndef TS_PROTO_PACK_H
#define TS_PROTO_PACK_H

#include <msgpack.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint8_t *buf;
    size_t   cap;
    size_t   len;
    bool     overflow;
} ts_fixbuf_t;

/* msgpack_packer write callback over a ts_fixbuf_t. */
int ts_fixbuf_write(void *data, const char *bytes, size_t len);

/* Readers: true when obj has the wanted type and range. */
bool ts_obj_u64(const msgpack_object *obj, uint64_t *out);
bool ts_obj_i64(const msgpack_object *obj, int64_t *out);

#endif
