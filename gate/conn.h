/* gate/conn.h - one client connection: its socket, frame reader, capped
 * output buffer, session fields and SYNC rate bucket, and the exchanges it
 * has in flight (gate/exchange.h), which it stamps as their replies leave.
 * Only the gate's event loop thread touches a connection. */
#ifndef GATE_CONN_H
#define GATE_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sys/socket.h>

#include "exchange.h"
#include "msg.h"
#include "udptag.h"
#include "ws.h"

typedef enum {
    GATE_CONN_NEW,       /* connected, no WELCOME yet */
    GATE_CONN_WELCOMED,  /* HELLO accepted, player bound */
    GATE_CONN_CLOSING,   /* last words written; input is discarded until close */
    GATE_CONN_GONE,      /* dropped: writes and reads nothing; freed at the end of the loop's turn */
} gate_conn_state_t;

typedef struct gate_conn_t gate_conn_t;

/* Takes ownership of fd (closed by destroy). out_cap bounds the bytes queued
 * for a client that does not read. Returns NULL when out of memory. */
gate_conn_t *gate_conn_new(int fd, uint64_t id, size_t out_cap, double sync_rate, int64_t now_us);
void gate_conn_destroy(gate_conn_t **self_p);

int      gate_conn_fd(const gate_conn_t *self);
uint64_t gate_conn_id(const gate_conn_t *self);

gate_conn_state_t gate_conn_state(const gate_conn_t *self);
uint64_t gate_conn_player(const gate_conn_t *self);
uint64_t gate_conn_session(const gate_conn_t *self);
/* The connection's exchanges in flight (owned by the connection). */
gate_exchange_t *gate_conn_exchanges(gate_conn_t *self);
void     gate_conn_welcome(gate_conn_t *self, uint64_t player_id, uint64_t session_id);
/* Counts a BAD_MESSAGE; returns how many this connection has had. */
int      gate_conn_bad_message(gate_conn_t *self);
/* True when one more SYNC keeps within the rate. */
bool     gate_conn_sync_allowed(gate_conn_t *self, int64_t now_us);

/* Input: see ts_framer_feed. */
int gate_conn_feed(gate_conn_t *self, const uint8_t *data, size_t len, size_t *consumed,
                   const uint8_t **body, size_t *body_len);

/* Output. Each writes at once when nothing is queued, else queues. They
 * return 0, or -1 when the queue would pass out_cap or the socket failed:
 * the caller then drops the connection. */
int gate_conn_send(gate_conn_t *self, const ts_msg_t *msg);
/* SYNC_REPLY with t3 read from the real-time clock immediately before the
 * write that carries it: now, or while corked, at the write that uncork (or
 * an early flush) makes, which stamps all the replies it carries with one
 * reading. The monotonic t3 goes to seq's exchange the same way
 * (gate_exchange_reply, gate_exchange_stamp); a SYNC that came over UDP
 * is answered over UDP. */
int gate_conn_send_sync_reply(gate_conn_t *self, uint64_t seq, int64_t t1, int64_t t2);
/* Whether the connection has input left unread after its share of a turn
 * (it waits on the gate's ready list, once). */
void gate_conn_set_pending(gate_conn_t *self, bool pending);
bool gate_conn_pending(const gate_conn_t *self);

/* While corked everything is queued (still within out_cap); uncork writes
 * it in as few calls as the socket allows. The gate corks a connection
 * while it answers one read's worth of frames. uncork returns -1 when the
 * socket failed. */
void gate_conn_cork(gate_conn_t *self);
int  gate_conn_uncork(gate_conn_t *self);
bool gate_conn_corked(const gate_conn_t *self);
/* Writes what is queued. Returns 1 while bytes remain, 0 when empty, -1 on error. */
int gate_conn_flush(gate_conn_t *self);
bool gate_conn_has_output(const gate_conn_t *self);

/* Enters GONE (gate_conntab_retire does this). */
void gate_conn_retire(gate_conn_t *self);

/* Enters CLOSING: shuts the write side once output is flushed, and is to
 * be closed at deadline_us (monotonic) or when the peer closes. */
void    gate_conn_close_after(gate_conn_t *self, int64_t deadline_us);
int64_t gate_conn_close_deadline(const gate_conn_t *self);

/* WebSocket (gate/ws.h). use_ws makes this a WebSocket connection, before
 * its first byte: its input goes through feed_ws instead of feed, and every
 * message it is sent leaves as one binary frame; close_after sends a Close
 * (1000) first. use_ws returns -1 when out of memory. feed_ws: as
 * gate_ws_feed. */
int  gate_conn_use_ws(gate_conn_t *self, const char *origins);
bool gate_conn_is_ws(const gate_conn_t *self);
bool gate_conn_ws_open(const gate_conn_t *self);   /* handshake answered 101, no Close sent */
int  gate_conn_feed_ws(gate_conn_t *self, const uint8_t *data, size_t len, gate_ws_message_fn *on_message, void *arg);
gate_ws_fault_t gate_conn_ws_fault(const gate_conn_t *self);

/* UDP (PROTOCOL.md "Framing"). enable hands the connection the gate's UDP
 * socket (borrowed) and the udp_key its WELCOME carries. check is the tag
 * of a datagram's message; same_host compares a datagram's source address
 * with the TCP peer's (ports may differ through NAT); set_udp_peer records
 * where replies go: a SYNC_REPLY to a SYNC that came over UDP (see
 * send_sync_reply), and a SYNC_RESULT whose ACK did (gate_exchange_result
 * says). send_udp never fails the connection: UDP may drop. */
void gate_conn_enable_udp(gate_conn_t *self, int udp_fd, const uint8_t key[TS_UDP_KEY_BYTES]);
bool gate_conn_udp_enabled(const gate_conn_t *self);
bool gate_conn_udp_check(const gate_conn_t *self, const uint8_t *msg, size_t len, const uint8_t *tag);
bool gate_conn_same_host(const gate_conn_t *self, const struct sockaddr_storage *from);
void gate_conn_set_udp_peer(gate_conn_t *self, const struct sockaddr_storage *from, socklen_t len);
int  gate_conn_send_udp(gate_conn_t *self, const ts_msg_t *msg);

#endif
