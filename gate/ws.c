/* gate/ws.c - see ws.h.
 *
 * The handshake: the request is gathered until its blank line (at most
 * GATE_WS_REQUEST_MAX bytes) and parsed once by http-parser, which also
 * judges "Connection: Upgrade" (its upgrade flag). The answer is 101 with
 * Sec-WebSocket-Accept, the base64 of SHA-1 (nettle) over the key and
 * RFC 6455's GUID; or 400, 403 (Origin) or 426 (version), and close.
 *
 * Then wslay's event API: its recv callback hands it the bytes of this
 * feed, its send callback gathers what it writes so that io.write gets a
 * whole frame at once (one syscall, one segment). wslay answers pings,
 * answers a Close, and closes itself with 1002 for a frame RFC 6455 forbids
 * and 1009 for a message over the cap; a text message (1003) and a message
 * in too many frames (1008) are closed here, at their first frame.
 *
 * wslay does not buffer data messages here (no_buffering): a message that
 * is one frame, unmasked whole in wslay's own read buffer, is handed on
 * from there; only a message in several frames, or one split across
 * reads, is gathered (in msg, grown to at most max_message). Most
 * messages are one small frame, and this spares each of them a malloc, a
 * copy and a free. Data frames go out through wslay's frame API, written
 * at once, instead of the event API's queue, which would copy each; the
 * event API sends the control frames (Pong, Close), and has none queued
 * between feeds. */
#include "ws.h"

#include <http_parser.h>
#include <nettle/sha1.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <wslay/wslay.h>

#define WS_GUID      "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
#define WS_VALUE_MAX 256     /* bytes kept of a header the handshake reads */
#define WS_STAGE     8192    /* frame bytes gathered before io.write (on send_queued's stack) */

typedef enum { WS_HANDSHAKE, WS_OPEN, WS_CLOSED } ws_state_t;

enum { H_NONE, H_UPGRADE, H_KEY, H_VERSION, H_ORIGIN, H_COUNT };

/* What the handshake gathers: freed once it is answered, so an open
 * connection does not carry its request for life. */
typedef struct {
    char   request[GATE_WS_REQUEST_MAX];
    size_t request_len;
    int    header;                       /* the one whose value comes next */
    char   value[H_COUNT][WS_VALUE_MAX];
    bool   seen[H_COUNT], overlong;
} ws_handshake_t;

struct gate_ws_t {
    ws_state_t              state;
    gate_ws_fault_t         fault;
    const char             *origins;
    size_t                  max_message;
    gate_ws_io_t            io;
    ws_handshake_t         *hs;                           /* until the handshake is answered */
    /* the frames */
    wslay_event_context_ptr ctx;                          /* frames in, and control frames out */
    wslay_frame_context_ptr frames_out;                   /* data frames out, written at once, never queued */
    const uint8_t          *in;                           /* this feed's bytes not yet given to wslay */
    size_t                  in_len;
    gate_ws_message_fn     *on_message;
    void                   *on_message_arg;
    int                     frames;                       /* of the message being received */
    bool                    control;                      /* the frame being received is a control frame */
    bool                    fin;                          /* ... is its message's last */
    uint64_t                frame_len, frame_got;         /* ... its payload's length, and what came of it */
    bool                    delivered;                    /* the message was handed on whole from wslay's buffer */
    uint8_t                *msg;                          /* a message gathered from its pieces */
    size_t                  msg_len, msg_size;
    bool                    write_failed;
    uint8_t                *stage;                        /* during send_queued and gate_ws_send: their buffer */
    size_t                  staged;
};

const char *gate_ws_fault_name(gate_ws_fault_t fault)
{
    static const char *const names[GATE_WS_FAULTS] = {
        "ok", "bad_handshake", "origin", "too_large", "text", "fragments", "protocol",
    };
    return fault >= 0 && fault < GATE_WS_FAULTS ? names[fault] : "unknown";
}

gate_ws_t *gate_ws_new(const char *origins, size_t max_message, const gate_ws_io_t *io)
{
    gate_ws_t *self = calloc(1, sizeof *self);
    if (self && !(self->hs = calloc(1, sizeof *self->hs))) {
        free(self);
        self = NULL;
    }
    if (!self)
        return NULL;
    self->origins = origins;
    self->max_message = max_message;
    self->io = *io;
    return self;
}

void gate_ws_destroy(gate_ws_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    if ((*self_p)->ctx)
        wslay_event_context_free((*self_p)->ctx);
    if ((*self_p)->frames_out)
        wslay_frame_context_free((*self_p)->frames_out);
    free((*self_p)->hs);
    free((*self_p)->msg);
    free(*self_p);
    *self_p = NULL;
}

gate_ws_fault_t gate_ws_fault(const gate_ws_t *self) { return self->fault; }
bool gate_ws_open(const gate_ws_t *self) { return self->state == WS_OPEN; }

/* ---- output ------------------------------------------------------------- */

static int flush_stage(gate_ws_t *self)
{
    if (self->staged == 0)
        return 0;
    size_t n = self->staged;
    self->staged = 0;
    if (self->io.write(self->io.arg, self->stage, n) < 0) {
        self->write_failed = true;
        return -1;
    }
    return 0;
}

/* Gathers bytes wslay writes in stage (written through by a piece larger
 * than stage). -1 when a write failed. */
static int stage_bytes(gate_ws_t *self, const uint8_t *data, size_t len)
{
    if (self->staged + len > WS_STAGE && flush_stage(self) < 0)
        return -1;
    if (len > WS_STAGE) {
        if (self->io.write(self->io.arg, data, len) < 0) {
            self->write_failed = true;
            return -1;
        }
        return 0;
    }
    memcpy(self->stage + self->staged, data, len);
    self->staged += len;
    return 0;
}

static ssize_t on_send(wslay_event_context_ptr ctx, const uint8_t *data, size_t len, int flags, void *arg)
{
    (void) flags;
    if (stage_bytes(arg, data, len) < 0) {
        wslay_event_set_error(ctx, WSLAY_ERR_CALLBACK_FAILURE);
        return -1;
    }
    return (ssize_t) len;
}

/* The frame context's: a data frame's header and payload. */
static ssize_t on_frame_send(const uint8_t *data, size_t len, int flags, void *arg)
{
    (void) flags;
    return stage_bytes(arg, data, len) < 0 ? -1 : (ssize_t) len;
}

/* Writes what wslay has queued, as whole frames (wslay hands a frame over
 * in pieces: they are gathered in stage, and written together). */
static int send_queued(gate_ws_t *self)
{
    uint8_t stage[WS_STAGE];
    self->stage = stage;
    self->staged = 0;
    int rc = wslay_event_send(self->ctx);
    int flushed = flush_stage(self);
    self->stage = NULL;
    if (flushed < 0 || rc < 0 || self->write_failed)
        return -1;
    if (wslay_event_get_close_sent(self->ctx))
        self->state = WS_CLOSED;
    return 0;
}

/* Closes for the peer's fault: the Close goes out with the next send. */
static void fail(gate_ws_t *self, gate_ws_fault_t fault, uint16_t code)
{
    if (self->fault == GATE_WS_OK)
        self->fault = fault;
    wslay_event_queue_close(self->ctx, code, NULL, 0);
    wslay_event_shutdown_read(self->ctx);
}

/* ---- input -------------------------------------------------------------- */

static ssize_t on_recv(wslay_event_context_ptr ctx, uint8_t *buf, size_t len, int flags, void *arg)
{
    (void) flags;
    gate_ws_t *self = arg;
    if (self->in_len == 0) {
        wslay_event_set_error(ctx, WSLAY_ERR_WOULDBLOCK);
        return -1;
    }
    size_t n = len < self->in_len ? len : self->in_len;
    memcpy(buf, self->in, n);
    self->in += n;
    self->in_len -= n;
    return (ssize_t) n;
}

static void on_frame_start(wslay_event_context_ptr ctx, const struct wslay_event_on_frame_recv_start_arg *a,
                           void *arg)
{
    (void) ctx;
    gate_ws_t *self = arg;
    self->control = a->opcode >= WSLAY_CONNECTION_CLOSE;
    if (self->control)
        return;   /* control frames may come between a message's frames; wslay buffers them */
    self->fin = a->fin;
    self->frame_len = a->payload_length;
    self->frame_got = 0;
    if (a->opcode == WSLAY_TEXT_FRAME) {
        fail(self, GATE_WS_TEXT, WSLAY_CODE_UNSUPPORTED_DATA);
    } else if (a->opcode == WSLAY_CONTINUATION_FRAME && ++self->frames > GATE_WS_FRAGMENTS_MAX) {
        fail(self, GATE_WS_FRAGMENTS, WSLAY_CODE_POLICY_VIOLATION);
    } else if (a->opcode == WSLAY_BINARY_FRAME) {
        self->frames = 1;
        self->msg_len = 0;
        self->delivered = false;
    }
}

static void deliver(gate_ws_t *self, const uint8_t *body, size_t len)
{
    if (self->fault == GATE_WS_OK && self->on_message)
        self->on_message(self->on_message_arg, body, len);
}

/* Adds a piece of the message to msg; false when it would pass max_message. */
static bool gather(gate_ws_t *self, const uint8_t *data, size_t len)
{
    if (len == 0)
        return true;   /* an empty fragment: wslay gives it no pointer */
    if (len > self->max_message - self->msg_len)
        return false;
    if (self->msg_len + len > self->msg_size) {
        uint8_t *grown = realloc(self->msg, self->max_message);
        if (!grown)
            return false;
        self->msg = grown;
        self->msg_size = self->max_message;
    }
    memcpy(self->msg + self->msg_len, data, len);
    self->msg_len += len;
    return true;
}

/* A piece of a data frame's payload, unmasked, in wslay's read buffer. */
static void on_frame_chunk(wslay_event_context_ptr ctx, const struct wslay_event_on_frame_recv_chunk_arg *a,
                           void *arg)
{
    (void) ctx;
    gate_ws_t *self = arg;
    if (self->control || self->fault != GATE_WS_OK)
        return;
    bool whole = self->frames == 1 && self->fin && self->frame_got == 0 && a->data_length == self->frame_len;
    self->frame_got += a->data_length;
    if (whole) {   /* the message is this frame, all here */
        self->delivered = true;
        deliver(self, a->data, a->data_length);
    } else if (!gather(self, a->data, a->data_length)) {
        fail(self, GATE_WS_TOO_LARGE, WSLAY_CODE_MESSAGE_TOO_BIG);
    }
}

/* A message's end (with no_buffering its msg_length is 0: the body is
 * what on_frame_chunk handed on or gathered), or a control frame. */
static void on_msg(wslay_event_context_ptr ctx, const struct wslay_event_on_msg_recv_arg *a, void *arg)
{
    (void) ctx;
    gate_ws_t *self = arg;
    if (a->opcode == WSLAY_BINARY_FRAME && !self->delivered)   /* both start over with the next message */
        deliver(self, self->msg, self->msg_len);   /* an empty one too: BAD_FRAME, the caller's to say */
}

static int feed_frames(gate_ws_t *self, const uint8_t *data, size_t len)
{
    self->in = data;
    self->in_len = len;
    int rc = wslay_event_recv(self->ctx);
    self->in_len = 0;
    if (rc < 0 && self->fault == GATE_WS_OK)
        self->fault = GATE_WS_PROTOCOL;
    if (send_queued(self) < 0)
        return -1;
    if (self->state == WS_CLOSED && self->fault == GATE_WS_OK && !wslay_event_get_close_received(self->ctx)) {
        uint16_t sent = wslay_event_get_status_code_sent(self->ctx);   /* wslay's own verdicts */
        self->fault = sent == WSLAY_CODE_MESSAGE_TOO_BIG ? GATE_WS_TOO_LARGE : GATE_WS_PROTOCOL;
    }
    return self->state == WS_CLOSED || rc < 0 ? 1 : 0;
}

/* ---- the handshake ------------------------------------------------------ */

static int on_field(http_parser *p, const char *at, size_t len)
{
    ws_handshake_t *hs = p->data;
    static const char *const names[H_COUNT] = {
        [H_UPGRADE] = "upgrade", [H_KEY] = "sec-websocket-key",
        [H_VERSION] = "sec-websocket-version", [H_ORIGIN] = "origin",
    };
    hs->header = H_NONE;
    for (int h = H_UPGRADE; h < H_COUNT; h++)
        if (strlen(names[h]) == len && strncasecmp(names[h], at, len) == 0)
            hs->header = h;
    return 0;
}

static int on_value(http_parser *p, const char *at, size_t len)
{
    ws_handshake_t *hs = p->data;
    int h = hs->header;
    if (h == H_NONE)
        return 0;
    if (hs->seen[h] || len >= WS_VALUE_MAX) {
        hs->overlong = true;   /* a repeated or overlong header: refused */
        return 0;
    }
    hs->seen[h] = true;
    memcpy(hs->value[h], at, len);
    hs->value[h][len] = '\0';
    return 0;
}

static bool origin_allowed(const gate_ws_t *self, const ws_handshake_t *hs)
{
    if (!hs->seen[H_ORIGIN] || !self->origins || !*self->origins || strcmp(self->origins, "*") == 0)
        return true;   /* no Origin: not a browser, whose pages it protects */
    const char *origin = hs->value[H_ORIGIN];
    size_t olen = strlen(origin);
    for (const char *p = self->origins; *p;) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t) (end - p) : strlen(p);
        while (n && *p == ' ')
            p++, n--;
        while (n && p[n - 1] == ' ')
            n--;
        if (n == olen && strncasecmp(p, origin, n) == 0)
            return true;
        if (!end)
            break;
        p = end + 1;
    }
    return false;
}

static int refuse(gate_ws_t *self, gate_ws_fault_t fault, const char *status, const char *extra)
{
    char resp[256];
    int n = snprintf(resp, sizeof resp, "HTTP/1.1 %s\r\nConnection: close\r\nContent-Length: 0\r\n%s\r\n", status,
                     extra ? extra : "");
    self->fault = fault;
    self->state = WS_CLOSED;
    return self->io.write(self->io.arg, (const uint8_t *) resp, (size_t) n) < 0 ? -1 : 1;
}

/* The request is complete (its first len bytes); answers it. */
static int answer(gate_ws_t *self, size_t len)
{
    ws_handshake_t *hs = self->hs;
    http_parser_settings settings;
    http_parser_settings_init(&settings);
    settings.on_header_field = on_field;
    settings.on_header_value = on_value;
    http_parser parser;
    http_parser_init(&parser, HTTP_REQUEST);
    parser.data = hs;
    http_parser_execute(&parser, &settings, hs->request, len);
    uint8_t key[16];
    size_t key_len = 0;
    if (HTTP_PARSER_ERRNO(&parser) != HPE_OK || parser.method != HTTP_GET || !parser.upgrade || hs->overlong
        || parser.http_major != 1 || parser.http_minor < 1 || !hs->seen[H_UPGRADE]
        || strcasecmp(hs->value[H_UPGRADE], "websocket") != 0 || !hs->seen[H_KEY]
        || sodium_base642bin(key, sizeof key, hs->value[H_KEY], strlen(hs->value[H_KEY]), NULL, &key_len, NULL,
                             sodium_base64_VARIANT_ORIGINAL) < 0
        || key_len != sizeof key)
        return refuse(self, GATE_WS_BAD_HANDSHAKE, "400 Bad Request", NULL);
    if (!hs->seen[H_VERSION] || strcmp(hs->value[H_VERSION], "13") != 0)
        return refuse(self, GATE_WS_BAD_HANDSHAKE, "426 Upgrade Required", "Sec-WebSocket-Version: 13\r\n");
    if (!origin_allowed(self, hs))
        return refuse(self, GATE_WS_ORIGIN, "403 Forbidden", NULL);

    struct sha1_ctx sha;
    uint8_t digest[SHA1_DIGEST_SIZE];
    sha1_init(&sha);
    sha1_update(&sha, strlen(hs->value[H_KEY]), (const uint8_t *) hs->value[H_KEY]);
    sha1_update(&sha, sizeof WS_GUID - 1, (const uint8_t *) WS_GUID);
    sha1_digest(&sha, sizeof digest, digest);
    char accept[sodium_base64_ENCODED_LEN(SHA1_DIGEST_SIZE, sodium_base64_VARIANT_ORIGINAL)];
    sodium_bin2base64(accept, sizeof accept, digest, sizeof digest, sodium_base64_VARIANT_ORIGINAL);

    struct wslay_event_callbacks cb = { .recv_callback = on_recv, .send_callback = on_send,
                                        .on_frame_recv_start_callback = on_frame_start,
                                        .on_frame_recv_chunk_callback = on_frame_chunk,
                                        .on_msg_recv_callback = on_msg };
    struct wslay_frame_callbacks out = { .send_callback = on_frame_send };
    if (wslay_event_context_server_init(&self->ctx, &cb, self) != 0
        || wslay_frame_context_init(&self->frames_out, &out, self) != 0)
        return -1;
    wslay_event_config_set_max_recv_msg_length(self->ctx, self->max_message);
    wslay_event_config_set_no_buffering(self->ctx, 1);
    char resp[256];
    int n = snprintf(resp, sizeof resp,
                     "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                     "Sec-WebSocket-Accept: %s\r\n\r\n", accept);
    self->state = WS_OPEN;
    return self->io.write(self->io.arg, (const uint8_t *) resp, (size_t) n) < 0 ? -1 : 0;
}

static int feed_handshake(gate_ws_t *self, const uint8_t *data, size_t len, size_t *used)
{
    ws_handshake_t *hs = self->hs;
    size_t room = sizeof hs->request - hs->request_len, take = len < room ? len : room;
    size_t before = hs->request_len;
    memcpy(hs->request + hs->request_len, data, take);
    hs->request_len += take;
    /* the blank line may straddle this feed and the last: search from a little before */
    size_t from = before > 3 ? before - 3 : 0;
    const char *blank = memmem(hs->request + from, hs->request_len - from, "\r\n\r\n", 4);
    if (!blank) {
        *used = take;
        if (hs->request_len == sizeof hs->request)
            return refuse(self, GATE_WS_BAD_HANDSHAKE, "400 Bad Request", NULL);
        return 0;
    }
    size_t end = (size_t) (blank + 4 - hs->request);
    *used = end - before;
    return answer(self, end);
}

int gate_ws_feed(gate_ws_t *self, const uint8_t *data, size_t len, gate_ws_message_fn *on_message, void *arg)
{
    if (self->state == WS_CLOSED)
        return 1;
    if (self->state == WS_HANDSHAKE) {
        size_t used = 0;
        int rc = feed_handshake(self, data, len, &used);
        if (self->state != WS_HANDSHAKE) {   /* answered: what it gathered is done with */
            free(self->hs);
            self->hs = NULL;
        }
        if (rc != 0 || self->state != WS_OPEN)
            return rc;
        data += used;   /* frames sent before the 101 was read */
        len -= used;
        if (len == 0)
            return 0;
    }
    self->on_message = on_message;
    self->on_message_arg = arg;
    return feed_frames(self, data, len);
}

int gate_ws_send(gate_ws_t *self, const uint8_t *body, size_t len)
{
    if (self->state != WS_OPEN)
        return -1;
    uint8_t stage[WS_STAGE];
    self->stage = stage;
    self->staged = 0;
    struct wslay_frame_iocb frame = { .fin = 1, .opcode = WSLAY_BINARY_FRAME, .payload_length = len,
                                      .data = body, .data_length = len };
    ssize_t sent = wslay_frame_send(self->frames_out, &frame);
    int flushed = flush_stage(self);
    self->stage = NULL;
    return sent == (ssize_t) len && flushed == 0 ? 0 : -1;
}

int gate_ws_close(gate_ws_t *self, uint16_t code)
{
    if (self->state != WS_OPEN)
        return 0;
    wslay_event_queue_close(self->ctx, code, NULL, 0);
    return send_queued(self);
}
