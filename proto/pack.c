/* proto/pack.c - see pack.h. */
#include "pack.h"

#include <msgpack/unpack_define.h>
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

/* ---- msgpack-c's unpacker, into a flat array ------------------------------
 *
 * msgpack-c's parser is a template (msgpack/unpack_template.h, installed
 * with it) that calls back for each value; its own msgpack_unpack's
 * callbacks build a tree of objects in a zone, reserving each container's
 * elements from its declared count. Every message of the protocol is one
 * flat array, and its decoders read at most its first TS_PACK_KEEP
 * elements and never a nested container's, so these callbacks keep the
 * root array's first TS_PACK_KEEP elements in the caller's array and
 * nothing else: no zone, no allocation, and so no count that could make
 * one (an array32 claiming 16M elements in 6 bytes is simply cut short).
 * A nested container is an object of its type with no elements; strings,
 * bins and exts point into the buffer, as msgpack-c's do. */

typedef struct {
    msgpack_object *keep;   /* the root array's elements */
    bool            root_seen;
} flat_user;

#define msgpack_unpack_struct(name) struct flat##name
#define msgpack_unpack_func(ret, name) static ret flat##name
#define msgpack_unpack_callback(name) flat_callback##name
#define msgpack_unpack_object msgpack_object
#define msgpack_unpack_user flat_user

static inline msgpack_object flat_callback_root(flat_user *u)
{
    (void) u;
    return (msgpack_object) { .type = MSGPACK_OBJECT_NIL };
}

static inline int flat_unsigned(uint64_t d, msgpack_object *o)
{
    o->type = MSGPACK_OBJECT_POSITIVE_INTEGER;
    o->via.u64 = d;
    return 0;
}

static inline int flat_signed(int64_t d, msgpack_object *o)
{
    if (d >= 0)
        return flat_unsigned((uint64_t) d, o);
    o->type = MSGPACK_OBJECT_NEGATIVE_INTEGER;
    o->via.i64 = d;
    return 0;
}

/* The integers, one callback a width: as msgpack-c has them, a
 * non-negative one is POSITIVE_INTEGER whatever its type. */
#define FLAT_INT(width, type, as)                                                    \
    static inline int flat_callback_##width(flat_user *u, type d, msgpack_object *o) \
    {                                                                                \
        (void) u;                                                                    \
        return as(d, o);                                                             \
    }
FLAT_INT(uint8, uint8_t, flat_unsigned)
FLAT_INT(uint16, uint16_t, flat_unsigned)
FLAT_INT(uint32, uint32_t, flat_unsigned)
FLAT_INT(uint64, uint64_t, flat_unsigned)
FLAT_INT(int8, int8_t, flat_signed)
FLAT_INT(int16, int16_t, flat_signed)
FLAT_INT(int32, int32_t, flat_signed)
FLAT_INT(int64, int64_t, flat_signed)
#undef FLAT_INT

static inline int flat_callback_float(flat_user *u, float d, msgpack_object *o)
{
    (void) u;
    *o = (msgpack_object) { .type = MSGPACK_OBJECT_FLOAT32, .via.f64 = d };
    return 0;
}

static inline int flat_callback_double(flat_user *u, double d, msgpack_object *o)
{
    (void) u;
    *o = (msgpack_object) { .type = MSGPACK_OBJECT_FLOAT64, .via.f64 = d };
    return 0;
}

static inline int flat_callback_nil(flat_user *u, msgpack_object *o)
{
    (void) u;
    o->type = MSGPACK_OBJECT_NIL;
    return 0;
}

static inline int flat_callback_true(flat_user *u, msgpack_object *o)
{
    (void) u;
    *o = (msgpack_object) { .type = MSGPACK_OBJECT_BOOLEAN, .via.boolean = true };
    return 0;
}

static inline int flat_callback_false(flat_user *u, msgpack_object *o)
{
    (void) u;
    *o = (msgpack_object) { .type = MSGPACK_OBJECT_BOOLEAN, .via.boolean = false };
    return 0;
}

/* The first container met is the root (its header comes before anything
 * in it): its elements go to keep; any other keeps none. */
static inline int flat_callback_array(flat_user *u, unsigned int n, msgpack_object *o)
{
    (void) n;
    o->type = MSGPACK_OBJECT_ARRAY;
    o->via.array.size = 0;
    o->via.array.ptr = u->root_seen ? NULL : u->keep;
    u->root_seen = true;
    return 0;
}

static inline int flat_callback_array_item(flat_user *u, msgpack_object *c, msgpack_object o)
{
    (void) u;
    if (c->via.array.ptr && c->via.array.size < TS_PACK_KEEP)
        c->via.array.ptr[c->via.array.size++] = o;
    return 0;
}

static inline int flat_callback_map(flat_user *u, unsigned int n, msgpack_object *o)
{
    (void) n;
    u->root_seen = true;
    *o = (msgpack_object) { .type = MSGPACK_OBJECT_MAP };
    return 0;
}

static inline int flat_callback_map_item(flat_user *u, msgpack_object *c, msgpack_object k, msgpack_object v)
{
    (void) u, (void) c, (void) k, (void) v;
    return 0;
}

static inline int flat_callback_str(flat_user *u, const char *b, const char *p, unsigned int l, msgpack_object *o)
{
    (void) u, (void) b;
    *o = (msgpack_object) { .type = MSGPACK_OBJECT_STR, .via.str = { .size = l, .ptr = p } };
    return 0;
}

static inline int flat_callback_bin(flat_user *u, const char *b, const char *p, unsigned int l, msgpack_object *o)
{
    (void) u, (void) b;
    *o = (msgpack_object) { .type = MSGPACK_OBJECT_BIN, .via.bin = { .size = l, .ptr = p } };
    return 0;
}

static inline int flat_callback_ext(flat_user *u, const char *b, const char *p, unsigned int l, msgpack_object *o)
{
    (void) u, (void) b;
    if (l == 0)
        return MSGPACK_UNPACK_PARSE_ERROR;   /* as msgpack-c: an ext holds its type */
    *o = (msgpack_object) { .type = MSGPACK_OBJECT_EXT,
                            .via.ext = { .type = (int8_t) *p, .size = l - 1, .ptr = p + 1 } };
    return 0;
}

#include <msgpack/unpack_template.h>

bool ts_pack_next(msgpack_object *keep, const uint8_t *buf, size_t len, size_t *off, msgpack_object *obj)
{
    if (*off >= len)
        return false;
    struct flat_context ctx;
    flat_init(&ctx);
    ctx.user = (flat_user) { .keep = keep };
    size_t at = *off;
    if (flat_execute(&ctx, (const char *) buf, len, &at) <= 0)
        return false;   /* malformed (< 0), or cut short (0) */
    *off = at;
    *obj = flat_data(&ctx);
    return true;
}

bool ts_pack_one(msgpack_object *keep, const uint8_t *buf, size_t len, msgpack_object *obj)
{
    size_t off = 0;
    return ts_pack_next(keep, buf, len, &off, obj) && off == len;
}

ts_decoder_t *ts_decoder_new(void)
{
    return malloc(sizeof(ts_decoder_t));
}

void ts_decoder_destroy(ts_decoder_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    free(*self_p);
    *self_p = NULL;
}
