/* proto/pack.c - see pack.h. */
#include "pack.h"

#include <string.h>

int ts_fixbuf_write(void *data, const char *bytes, size_t len)
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
