/* proto/pack.c - see pack.h. */
#include "pack.h"

#include <stdlib.h>

bool ts_obj_u64(const msgpack_object *obj, uint64_t *out)
{
    if (obj->type != MSGPACK_OBJECT_POSITIVE_INTEGER)
        return false;
    *out = obj->via.u64;
    return true;
}

bool ts_obj_i64(const msgpack_object *obj, int64_t *out)
{
    if (obj->type == MSGPACK_OBJECT_NEGATIVE_INTEGER) {
        *out = obj->via.i64;
        return true;
    }
    if (obj->type == MSGPACK_OBJECT_POSITIVE_INTEGER && obj->via.u64 <= INT64_MAX) {
        *out = (int64_t) obj->via.u64;
        return true;
    }
    return false;
}

bool ts_obj_opt_i64(const msgpack_object *obj, bool *has, int64_t *out)
{
    *has = obj->type != MSGPACK_OBJECT_NIL;
    return !*has || ts_obj_i64(obj, out);
}

/* Big-endian unsigned of n bytes at p. */
static uint64_t be(const uint8_t *p, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

bool ts_pack_plausible(const uint8_t *b, size_t len)
{
    size_t i = 0;
    uint64_t pending = 1;   /* values still to walk */
    while (pending > 0) {
        if (i >= len)
            return false;
        pending--;
        uint8_t t = b[i++];
        if (t <= 0x7f || t >= 0xe0 || t == 0xc0 || t == 0xc2 || t == 0xc3)
            continue;                                              /* the byte is the value */
        if (t >= 0xcc && t <= 0xd3) {                              /* (u)int 8..64: most of what is left */
            size_t n = (size_t) 1 << ((t - 0xcc) & 3);
            if (n > len - i)
                return false;
            i += n;
            continue;
        }
        uint64_t elements = 0, payload = 0;
        size_t head = 0;    /* length bytes after the type byte */
        if (t <= 0x8f) {
            elements = 2u * (t & 0x0fu);
        } else if (t <= 0x9f) {
            elements = t & 0x0fu;
        } else if (t <= 0xbf) {
            payload = t & 0x1fu;
        } else {
            switch (t) {
            case 0xc4: case 0xd9: head = 1; break;                 /* bin8, str8 */
            case 0xc5: case 0xda: head = 2; break;                 /* bin16, str16 */
            case 0xc6: case 0xdb: head = 4; break;                 /* bin32, str32 */
            case 0xc7: head = 1; payload = 1; break;               /* ext8: + type */
            case 0xc8: head = 2; payload = 1; break;
            case 0xc9: head = 4; payload = 1; break;
            case 0xca: payload = 4; break;                         /* float32 */
            case 0xcb: payload = 8; break;
            case 0xcc: case 0xd0: payload = 1; break;              /* (u)int8 */
            case 0xcd: case 0xd1: payload = 2; break;
            case 0xce: case 0xd2: payload = 4; break;
            case 0xcf: case 0xd3: payload = 8; break;
            case 0xd4: payload = 2; break;                         /* fixext1..16: type + data */
            case 0xd5: payload = 3; break;
            case 0xd6: payload = 5; break;
            case 0xd7: payload = 9; break;
            case 0xd8: payload = 17; break;
            case 0xdc: case 0xde: head = 2; break;                 /* array16, map16 */
            case 0xdd: case 0xdf: head = 4; break;                 /* array32, map32 */
            default: return false;                                 /* 0xc1: never used */
            }
            if (head > len - i)
                return false;
            uint64_t n = be(b + i, head);
            i += head;
            if (t == 0xdc || t == 0xdd)
                elements = n;
            else if (t == 0xde || t == 0xdf)
                elements = 2 * n;
            else if (head)
                payload += n;
        }
        if (payload > len - i || elements > len - i)
            return false;
        i += (size_t) payload;
        pending += elements;
    }
    return true;
}

bool ts_pack_next(msgpack_zone *zone, const uint8_t *buf, size_t len, size_t *off, msgpack_object *obj)
{
    if (*off >= len || !ts_pack_plausible(buf + *off, len - *off))
        return false;
    msgpack_unpack_return rc = msgpack_unpack((const char *) buf, len, off, zone, obj);
    return rc == MSGPACK_UNPACK_SUCCESS || rc == MSGPACK_UNPACK_EXTRA_BYTES;
}

bool ts_pack_one(msgpack_zone *zone, const uint8_t *buf, size_t len, msgpack_object *obj)
{
    size_t off = 0;
    return ts_pack_next(zone, buf, len, &off, obj) && off == len;
}

ts_decoder_t *ts_decoder_new(void)
{
    ts_decoder_t *self = malloc(sizeof *self);
    if (self && !msgpack_zone_init(&self->zone, 2048)) {
        free(self);
        return NULL;
    }
    return self;
}

void ts_decoder_destroy(ts_decoder_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    msgpack_zone_destroy(&(*self_p)->zone);
    free(*self_p);
    *self_p = NULL;
}
