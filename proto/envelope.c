/* proto/envelope.c - see envelope.h. The wire form is one msgpack array:
 * [kind, conn, player_id, seq, kind-specific fields...]. A PONG may carry
 * one more, its flags; a PONG without them (a scene from before
 * 2026-11-25) decodes with flags 0. */
#include "envelope.h"

#include <string.h>

#include "pack.h"

/* Elements after the four common ones. */
static int extra_elements(uint64_t kind)
{
    switch (kind) {
    case TS_ENV_PING: case TS_ENV_PONG: case TS_ENV_OPEN: case TS_ENV_CLOSE: case TS_ENV_KICK: case TS_ENV_HELD:
        return 0;
    case TS_ENV_SYNC:
        return 2;
    case TS_ENV_SYNC_ACK:
        return 5;
    case TS_ENV_SYNC_RESULT:
        return 1;
    default:
        return -1;
    }
}

TS_PACK_FLAT size_t ts_env_encode(const ts_env_t *e, uint8_t *buf, size_t cap)
{
    int extra = extra_elements(e->kind);
    if (extra < 0)
        return 0;
    ts_fixbuf_t fb = { .buf = buf, .cap = cap };
    msgpack_packer pk;
    msgpack_packer_init(&pk, &fb, ts_fixbuf_write);
    bool pong_flags = e->kind == TS_ENV_PONG && e->flags;
    msgpack_pack_array(&pk, 4 + (size_t) extra + pong_flags);
    msgpack_pack_uint64(&pk, e->kind);
    msgpack_pack_uint64(&pk, e->conn);
    msgpack_pack_uint64(&pk, e->player_id);
    msgpack_pack_uint64(&pk, e->seq);
    if (pong_flags)
        msgpack_pack_uint64(&pk, e->flags);
    switch (e->kind) {
    case TS_ENV_SYNC:   /* the times are µs of a clock: 8 bytes whatever the width chosen, so none is */
        msgpack_pack_fix_int64(&pk, e->t1);
        msgpack_pack_fix_int64(&pk, e->t2);
        break;
    case TS_ENV_SYNC_ACK:
        msgpack_pack_fix_int64(&pk, e->t4);
        msgpack_pack_fix_int64(&pk, e->t5);
        msgpack_pack_int64(&pk, e->t6_t3);
        ts_pack_opt_i64(&pk, e->has_client_rtt, e->client_rtt);
        ts_pack_opt_i64(&pk, e->has_client_offset, e->client_offset);
        break;
    case TS_ENV_SYNC_RESULT:
        if (e->reply_len == 0 || e->reply_len > TS_ENV_REPLY_MAX)
            return 0;
        msgpack_pack_bin_with_body(&pk, e->reply, e->reply_len);
        break;
    }
    return fb.overflow ? 0 : fb.len;
}

static int decode_array(const msgpack_object *obj, ts_env_t *e)
{
    if (obj->type != MSGPACK_OBJECT_ARRAY || obj->via.array.size < 4)
        return -1;
    const msgpack_object *el = obj->via.array.ptr;
    if (!ts_obj_u64(&el[0], &e->kind) || !ts_obj_u64(&el[1], &e->conn)
        || !ts_obj_u64(&el[2], &e->player_id) || !ts_obj_u64(&el[3], &e->seq))
        return -1;
    int extra = extra_elements(e->kind);
    if (extra < 0 || obj->via.array.size < 4 + (size_t) extra)
        return -1;
    el += 4;
    bool ok = true;
    switch (e->kind) {
    case TS_ENV_PONG:
        ok = obj->via.array.size == 4 || ts_obj_u64(&el[0], &e->flags);
        break;
    case TS_ENV_SYNC:
        ok = ts_obj_i64(&el[0], &e->t1) && ts_obj_i64(&el[1], &e->t2);
        break;
    case TS_ENV_SYNC_ACK:
        ok = ts_obj_i64(&el[0], &e->t4) && ts_obj_i64(&el[1], &e->t5) && ts_obj_i64(&el[2], &e->t6_t3)
          && ts_obj_opt_i64(&el[3], &e->has_client_rtt, &e->client_rtt)
          && ts_obj_opt_i64(&el[4], &e->has_client_offset, &e->client_offset);
        break;
    case TS_ENV_SYNC_RESULT:
        ok = el[0].type == MSGPACK_OBJECT_BIN && el[0].via.bin.size > 0 && el[0].via.bin.size <= TS_ENV_REPLY_MAX;
        if (ok) {
            e->reply = (const uint8_t *) el[0].via.bin.ptr;
            e->reply_len = el[0].via.bin.size;
        }
        break;
    }
    return ok ? 0 : -1;
}

bool ts_env_append(uint8_t *buf, size_t cap, size_t *len, const ts_env_t *env)
{
    size_t n = *len < cap ? ts_env_encode(env, buf + *len, cap - *len) : 0;
    *len += n;
    return n > 0;
}

int ts_env_next(ts_decoder_t *dec, const uint8_t *buf, size_t len, size_t *off, ts_env_t *out)
{
    memset(out, 0, sizeof *out);
    if (*off >= len)
        return 0;
    msgpack_object obj;
    int rc = ts_pack_next(dec->keep, buf, len, off, &obj) ? decode_array(&obj, out) : -1;
    if (rc < 0)
        *off = len;
    return rc < 0 ? -1 : 1;
}

int ts_env_decode(const uint8_t *buf, size_t len, ts_env_t *out)
{
    memset(out, 0, sizeof *out);
    msgpack_object keep[TS_PACK_KEEP], obj;
    return ts_pack_one(keep, buf, len, &obj) ? decode_array(&obj, out) : -1;
}
