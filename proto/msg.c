/* proto/msg.c - msgpack encoding and decoding of PROTOCOL.md messages. */
#include "msg.h"

#include <stdio.h>
#include <string.h>

#include "pack.h"

/* Elements a message must have, type and seq included. */
static size_t min_elements(uint64_t type)
{
    switch (type) {
    case TS_HELLO:       return 5;
    case TS_WELCOME:     return 7;
    case TS_SYNC:        return 3;
    case TS_SYNC_REPLY:  return 5;
    case TS_SYNC_ACK:    return 4;
    case TS_SYNC_RESULT: return 5;
    case TS_ERROR:       return 4;
    case TS_BYE:         return 3;
    default:             return 0;
    }
}

static bool sent_by(uint64_t type, ts_dir_t dir)
{
    switch (type) {
    case TS_HELLO: case TS_SYNC: case TS_SYNC_ACK:
        return dir == TS_FROM_CLIENT;
    case TS_WELCOME: case TS_SYNC_REPLY: case TS_SYNC_RESULT: case TS_ERROR:
        return dir == TS_FROM_SERVER;
    case TS_BYE:
        return true;
    default:
        return false;
    }
}

static bool get_text(const msgpack_object *obj, char *text)
{
    if (obj->type != MSGPACK_OBJECT_STR)
        return false;
    size_t n = obj->via.str.size < TS_TEXT_MAX - 1 ? obj->via.str.size : TS_TEXT_MAX - 1;
    if (n)   /* an empty str has no pointer */
        memcpy(text, obj->via.str.ptr, n);
    text[n] = '\0';
    return true;
}

/* An optional trailing int64: absent or nil leaves *has false. */
static bool get_opt_i64(const msgpack_object *el, size_t n, size_t i, bool *has, int64_t *v)
{
    *has = false;
    return i >= n || ts_obj_opt_i64(&el[i], has, v);
}

static ts_error_t decode_hello(const msgpack_object *el, ts_hello_t *h)
{
    if (!ts_obj_u64(&el[2], &h->version))
        return TS_BAD_MESSAGE;
    if (h->version != TS_PROTOCOL_VERSION)
        return TS_UNSUPPORTED_VERSION;
    if (!ts_obj_u64(&el[3], &h->player_id) || h->player_id == 0)
        return TS_BAD_MESSAGE;
    if (el[4].type == MSGPACK_OBJECT_NIL)
        return TS_OK;
    if (el[4].type != MSGPACK_OBJECT_BIN)
        return TS_BAD_MESSAGE;
    h->has_token = true;
    h->token_len = el[4].via.bin.size;
    if (h->token_len)   /* an empty bin has no pointer */
        memcpy(h->token, el[4].via.bin.ptr, h->token_len < TS_TOKEN_KEEP ? h->token_len : TS_TOKEN_KEEP);
    return TS_OK;
}

static ts_error_t decode_welcome(const msgpack_object *el, ts_welcome_t *w)
{
    if (!ts_obj_u64(&el[2], &w->version))
        return TS_BAD_MESSAGE;
    if (w->version != TS_PROTOCOL_VERSION)
        return TS_UNSUPPORTED_VERSION;
    if (!ts_obj_u64(&el[3], &w->session_id) || !ts_obj_i64(&el[4], &w->server_time)
        || !ts_obj_u64(&el[5], &w->sync_interval_ms))
        return TS_BAD_MESSAGE;
    if (el[6].type == MSGPACK_OBJECT_NIL)
        return TS_OK;
    if (el[6].type != MSGPACK_OBJECT_BIN || el[6].via.bin.size != TS_UDP_KEY_BYTES)
        return TS_BAD_MESSAGE;
    w->has_udp_key = true;
    memcpy(w->udp_key, el[6].via.bin.ptr, TS_UDP_KEY_BYTES);
    return TS_OK;
}

static ts_error_t decode_body(const msgpack_object *el, size_t n, ts_msg_t *m)
{
    switch (m->type) {
    case TS_HELLO:
        return decode_hello(el, &m->u.hello);
    case TS_WELCOME:
        return decode_welcome(el, &m->u.welcome);
    case TS_SYNC:
        return ts_obj_i64(&el[2], &m->u.sync.t1) ? TS_OK : TS_BAD_MESSAGE;
    case TS_SYNC_REPLY: {
        ts_sync_reply_t *r = &m->u.sync_reply;
        return ts_obj_i64(&el[2], &r->t1) && ts_obj_i64(&el[3], &r->t2) && ts_obj_i64(&el[4], &r->t3)
            ? TS_OK : TS_BAD_MESSAGE;
    }
    case TS_SYNC_ACK: {
        ts_sync_ack_t *a = &m->u.sync_ack;
        return ts_obj_i64(&el[2], &a->t4) && ts_obj_i64(&el[3], &a->t5)
            && get_opt_i64(el, n, 4, &a->has_client_rtt, &a->client_rtt)
            && get_opt_i64(el, n, 5, &a->has_client_offset, &a->client_offset)
            ? TS_OK : TS_BAD_MESSAGE;
    }
    case TS_SYNC_RESULT: {
        ts_sync_result_t *r = &m->u.sync_result;
        return ts_obj_i64(&el[2], &r->rtt) && ts_obj_i64(&el[3], &r->srtt) && ts_obj_i64(&el[4], &r->rttvar)
            ? TS_OK : TS_BAD_MESSAGE;
    }
    case TS_ERROR:
        return ts_obj_u64(&el[2], &m->u.error.code) && get_text(&el[3], m->u.error.text)
            ? TS_OK : TS_BAD_MESSAGE;
    case TS_BYE:
        return get_text(&el[2], m->u.bye.text) ? TS_OK : TS_BAD_MESSAGE;
    default:
        return TS_BAD_MESSAGE;
    }
}

static ts_error_t decode_object(const msgpack_object *obj, ts_dir_t dir, ts_msg_t *m)
{
    if (obj->type != MSGPACK_OBJECT_ARRAY)
        return TS_BAD_MESSAGE;
    const msgpack_object *el = obj->via.array.ptr;
    size_t n = obj->via.array.size;
    if (n >= 2 && !ts_obj_u64(&el[1], &m->seq))
        m->seq = 0;
    if (n < 2 || !ts_obj_u64(&el[0], &m->type) || !ts_obj_u64(&el[1], &m->seq))
        return TS_BAD_MESSAGE;
    size_t need = min_elements(m->type);
    if (need == 0 || !sent_by(m->type, dir) || n < need)
        return TS_BAD_MESSAGE;
    return decode_body(el, n, m);
}

ts_error_t ts_msg_decode_with(ts_decoder_t *dec, const uint8_t *buf, size_t len, ts_dir_t dir, ts_msg_t *out)
{
    memset(out, 0, sizeof *out);
    msgpack_object obj;
    return ts_pack_one(dec->keep, buf, len, &obj) ? decode_object(&obj, dir, out) : TS_BAD_FRAME;
}

ts_error_t ts_msg_decode(const uint8_t *buf, size_t len, ts_dir_t dir, ts_msg_t *out)
{
    ts_decoder_t dec;
    return ts_msg_decode_with(&dec, buf, len, dir, out);
}

static void pack_text(msgpack_packer *pk, const char *text)
{
    size_t n = strnlen(text, TS_TEXT_MAX - 1);
    msgpack_pack_str(pk, n);
    msgpack_pack_str_body(pk, text, n);
}

TS_PACK_FLAT size_t ts_msg_encode(const ts_msg_t *m, uint8_t *buf, size_t cap)
{
    ts_fixbuf_t fb = { .buf = buf, .cap = cap };
    msgpack_packer pk;
    msgpack_packer_init(&pk, &fb, ts_fixbuf_write);
    size_t n = min_elements(m->type);
    if (n == 0)
        return 0;
    if (m->type == TS_SYNC_ACK)
        n += m->u.sync_ack.has_client_offset ? 2 : m->u.sync_ack.has_client_rtt ? 1 : 0;
    msgpack_pack_array(&pk, n);
    msgpack_pack_uint64(&pk, m->type);
    msgpack_pack_uint64(&pk, m->seq);
    switch (m->type) {
    case TS_HELLO: {
        const ts_hello_t *h = &m->u.hello;
        msgpack_pack_uint64(&pk, h->version);
        msgpack_pack_uint64(&pk, h->player_id);
        if (h->has_token) {
            size_t tl = h->token_len < TS_TOKEN_KEEP ? h->token_len : TS_TOKEN_KEEP;
            msgpack_pack_bin(&pk, tl);
            msgpack_pack_bin_body(&pk, h->token, tl);
        } else {
            msgpack_pack_nil(&pk);
        }
        break;
    }
    case TS_WELCOME: {
        const ts_welcome_t *w = &m->u.welcome;
        msgpack_pack_uint64(&pk, w->version);
        msgpack_pack_uint64(&pk, w->session_id);
        msgpack_pack_int64(&pk, w->server_time);
        msgpack_pack_uint64(&pk, w->sync_interval_ms);
        if (w->has_udp_key) {
            msgpack_pack_bin(&pk, TS_UDP_KEY_BYTES);
            msgpack_pack_bin_body(&pk, w->udp_key, TS_UDP_KEY_BYTES);
        } else {
            msgpack_pack_nil(&pk);
        }
        break;
    }
    case TS_SYNC:
        msgpack_pack_int64(&pk, m->u.sync.t1);
        break;
    case TS_SYNC_REPLY:
        msgpack_pack_int64(&pk, m->u.sync_reply.t1);
        msgpack_pack_int64(&pk, m->u.sync_reply.t2);
        msgpack_pack_fix_int64(&pk, m->u.sync_reply.t3);   /* last, fixed width: see ts_msg_set_t3 */
        break;
    case TS_SYNC_ACK: {
        const ts_sync_ack_t *a = &m->u.sync_ack;
        msgpack_pack_int64(&pk, a->t4);
        msgpack_pack_int64(&pk, a->t5);
        if (n >= 5)
            ts_pack_opt_i64(&pk, a->has_client_rtt, a->client_rtt);
        if (n >= 6)
            ts_pack_opt_i64(&pk, a->has_client_offset, a->client_offset);
        break;
    }
    case TS_SYNC_RESULT:
        msgpack_pack_int64(&pk, m->u.sync_result.rtt);
        msgpack_pack_int64(&pk, m->u.sync_result.srtt);
        msgpack_pack_int64(&pk, m->u.sync_result.rttvar);
        break;
    case TS_ERROR:
        msgpack_pack_uint64(&pk, m->u.error.code);
        pack_text(&pk, m->u.error.text);
        break;
    case TS_BYE:
        pack_text(&pk, m->u.bye.text);
        break;
    }
    return fb.overflow ? 0 : fb.len;
}

void ts_msg_error(ts_msg_t *m, uint64_t seq, ts_error_t code, const char *text)
{
    m->type = TS_ERROR;
    m->seq = seq;
    m->u.error.code = code;
    snprintf(m->u.error.text, sizeof m->u.error.text, "%s", text ? text : ts_error_name(code));
}

void ts_msg_bye(ts_msg_t *m, uint64_t seq, const char *reason)
{
    m->type = TS_BYE;
    m->seq = seq;
    snprintf(m->u.bye.text, sizeof m->u.bye.text, "%s", reason ? reason : "");
}

const char *ts_error_name(uint64_t code)
{
    static const char *names[] = {
        "OK", "BAD_FRAME", "BAD_MESSAGE", "UNSUPPORTED_VERSION", "UNAUTHORIZED",
        "NOT_AUTHENTICATED", "RATE_LIMITED", "UNAVAILABLE", "TOO_LARGE",
    };
    return code < sizeof names / sizeof names[0] ? names[code] : "UNKNOWN";
}

const char *ts_msg_type_name(uint64_t type)
{
    switch (type) {
    case TS_HELLO:       return "HELLO";
    case TS_WELCOME:     return "WELCOME";
    case TS_SYNC:        return "SYNC";
    case TS_SYNC_REPLY:  return "SYNC_REPLY";
    case TS_SYNC_ACK:    return "SYNC_ACK";
    case TS_SYNC_RESULT: return "SYNC_RESULT";
    case TS_ERROR:       return "ERROR";
    case TS_BYE:         return "BYE";
    default:             return "UNKNOWN";
    }
}

void ts_msg_set_t3(uint8_t *end, int64_t t3)
{
    uint64_t v = (uint64_t) t3;
    for (int i = 1; i <= 8; i++, v >>= 8)
        end[-i] = (uint8_t) v;
}
