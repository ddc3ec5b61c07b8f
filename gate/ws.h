/* gate/ws.h - one connection's WebSocket end (RFC 6455), over bytes: the
 * opening handshake, then binary messages each carrying one PROTOCOL.md
 * message without its 4-byte length. No socket here: the connection hands
 * in what it read and gets the bytes to write through io.write, and each
 * binary message through feed's callback.
 *
 * The handshake's request is parsed by http-parser; the frames (masking,
 * reassembly, ping/pong, the close handshake, the size cap) by wslay's
 * event API. What is left here is the policy: the Origin check, one
 * message type, how many frames a message may take. */
#ifndef GATE_WS_H
#define GATE_WS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GATE_WS_REQUEST_MAX   4096   /* bytes of the handshake's request */
#define GATE_WS_FRAGMENTS_MAX 16     /* frames one message may take */

/* Why a connection was refused or closed, for the metric. */
typedef enum {
    GATE_WS_OK = 0,
    GATE_WS_BAD_HANDSHAKE,   /* not a WebSocket opening: 400, or 426 for another version */
    GATE_WS_ORIGIN,          /* Origin not in --ws-origins: 403 */
    GATE_WS_TOO_LARGE,       /* a message over the cap: close 1009 */
    GATE_WS_TEXT,            /* a text message: close 1003 */
    GATE_WS_FRAGMENTS,       /* a message in more than GATE_WS_FRAGMENTS_MAX frames: close 1008 */
    GATE_WS_PROTOCOL,        /* a frame RFC 6455 forbids (unmasked, reserved bits or opcode, ...): close 1002 */
    GATE_WS_FAULTS
} gate_ws_fault_t;

const char *gate_ws_fault_name(gate_ws_fault_t fault);

typedef struct {
    /* Bytes for the peer, in order: a whole HTTP response or a whole frame
     * per call. Returns 0, or -1 when the connection cannot take them. */
    int (*write)(void *arg, const uint8_t *bytes, size_t len);
    void *arg;
} gate_ws_io_t;

/* One binary message from the peer (valid during the call). */
typedef void gate_ws_message_fn(void *arg, const uint8_t *body, size_t len);

typedef struct gate_ws_t gate_ws_t;

/* origins: comma-separated exact origins ("https://game.example"), "*" or
 * NULL for any; a request without Origin is not a browser's and passes.
 * Borrowed: must outlive the endpoint. max_message caps a message's bytes.
 * Returns NULL when out of memory. */
gate_ws_t *gate_ws_new(const char *origins, size_t max_message, const gate_ws_io_t *io);
void gate_ws_destroy(gate_ws_t **self_p);

/* Takes bytes read from the peer. Returns 0 while the connection goes on,
 * 1 when it is to close once its output is written (a refused handshake,
 * a Close sent or answered: gate_ws_fault tells why), -1 when a write
 * failed. */
int gate_ws_feed(gate_ws_t *self, const uint8_t *data, size_t len, gate_ws_message_fn *on_message, void *arg);
gate_ws_fault_t gate_ws_fault(const gate_ws_t *self);

/* True once the handshake is answered 101 and until a Close is sent. */
bool gate_ws_open(const gate_ws_t *self);

/* Sends body as one binary frame (at once, through io.write). Returns 0,
 * or -1 when the endpoint is not open or the write failed. */
int gate_ws_send(gate_ws_t *self, const uint8_t *body, size_t len);

/* Sends a Close with code (1000 normal, 1001 going away) if the endpoint is
 * open and has sent none. Returns 0, or -1 when the write failed. */
int gate_ws_close(gate_ws_t *self, uint16_t code);

#endif
