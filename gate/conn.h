/* gate/conn.h - one client stream: its socket, its transport (TCP's
 * length-prefixed frames, or WebSocket binary messages), a capped output
 * buffer that can be corked, SYNC_REPLYs stamped by the write that carries
 * them, its closing, and the session it carries (gate/session.h, owned).
 *
 * The transport is a table of three operations inside conn.c: feed (bytes
 * in, message bodies out), frame (a body out as the transport frames it)
 * and last words (what it says before its write side is shut: WebSocket's
 * Close). Nothing outside conn.c branches on which one a stream uses. UDP
 * is no stream: a session answers datagrams through the gate's socket.
 *
 * Only the gate's event loop thread touches a connection. */
#ifndef GATE_CONN_H
#define GATE_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sys/socket.h>

#include "exchange.h"
#include "msg.h"
#include "session.h"
#include "ws.h"

typedef enum { GATE_TRANSPORT_TCP, GATE_TRANSPORT_WS } gate_transport_t;

typedef enum {
    GATE_CONN_OPEN,      /* reading and writing */
    GATE_CONN_CLOSING,   /* last words written; input is discarded until close */
    GATE_CONN_GONE,      /* dropped: writes and reads nothing; freed at the end of the loop's turn */
} gate_conn_state_t;

typedef struct gate_conn_t gate_conn_t;

/* Takes ownership of fd (closed by destroy). origins: a WebSocket's allowed
 * Origins (gate/ws.h; borrowed). out_cap bounds the bytes queued for a
 * client that does not read. NULL when out of memory. */
gate_conn_t *gate_conn_new(int fd, uint64_t id, gate_transport_t transport, const char *origins, size_t out_cap);
/* Destroys its session too. */
void gate_conn_destroy(gate_conn_t **self_p);

int               gate_conn_fd(const gate_conn_t *self);
uint64_t          gate_conn_id(const gate_conn_t *self);
gate_conn_state_t gate_conn_state(const gate_conn_t *self);
/* The TCP peer's address (UDP admission compares hosts with it). */
const struct sockaddr_storage *gate_conn_peer(const gate_conn_t *self);

/* The session it carries, owned from attach on (NULL before). */
void            gate_conn_attach(gate_conn_t *self, gate_session_t *session);
gate_session_t *gate_conn_session(const gate_conn_t *self);

/* What a read's bytes hold, as the transport finds them. message gets one
 * body (valid during the call) and returns false to leave the rest of the
 * read unread (the session closed). bad_frame gets BAD_FRAME or TOO_LARGE
 * when the framing broke: nothing after it is read. */
typedef struct {
    bool (*message)(void *arg, const uint8_t *body, size_t len);
    void (*bad_frame)(void *arg, ts_error_t code);
    void *arg;
} gate_conn_input_t;

typedef enum {
    GATE_FEED_OK,
    GATE_FEED_OPENED,   /* the WebSocket handshake was answered 101 in this read */
    GATE_FEED_CLOSE,    /* the transport ends the stream once its output is written (gate_conn_fault says why) */
    GATE_FEED_FAILED,   /* a write failed: drop it */
} gate_feed_t;

gate_feed_t     gate_conn_feed(gate_conn_t *self, const uint8_t *data, size_t len, const gate_conn_input_t *in);
/* Why a WebSocket was refused or closed; GATE_WS_OK for TCP. */
gate_ws_fault_t gate_conn_fault(const gate_conn_t *self);

/* Output. Each writes at once when nothing is queued, else queues. They
 * return 0, or -1 when the queue would pass out_cap or the socket failed:
 * the caller then drops the connection. */
/* One message's encoded body (msg.h), framed by the transport. */
int gate_conn_send(gate_conn_t *self, const uint8_t *body, size_t len);
/* SYNC_REPLY with t3 read from the real-time clock immediately before the
 * write that carries it: now, or while corked, at the write that uncork (or
 * an early flush) makes, which stamps all the replies it carries with one
 * reading. The monotonic t3 goes to seq's exchange in x the same way
 * (gate_exchange_reply, gate_exchange_stamp). */
int gate_conn_send_sync_reply(gate_conn_t *self, gate_exchange_t *x, uint64_t seq, int64_t t1, int64_t t2);

/* While corked everything is queued (still within out_cap); uncork writes
 * it in as few calls as the socket allows. cork returns false when it was
 * corked already; uncork returns -1 when the socket failed. */
bool gate_conn_cork(gate_conn_t *self);
int  gate_conn_uncork(gate_conn_t *self);
/* Writes what is queued. Returns 1 while bytes remain, 0 when empty, -1 on error. */
int gate_conn_flush(gate_conn_t *self);

/* Whether the connection has input left unread after its share of a turn
 * (it waits on the gate's ready list, once). */
void gate_conn_set_pending(gate_conn_t *self, bool pending);
bool gate_conn_pending(const gate_conn_t *self);

/* Enters CLOSING: the transport's last words, then the write side is shut
 * once output is flushed; to be closed at deadline_us (monotonic) or when
 * the peer closes. */
void    gate_conn_close_after(gate_conn_t *self, int64_t deadline_us);
int64_t gate_conn_close_deadline(const gate_conn_t *self);
/* Enters GONE (gate_conntab_retire does this). */
void gate_conn_retire(gate_conn_t *self);

#endif
