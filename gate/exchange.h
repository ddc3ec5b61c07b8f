/* gate/exchange.h - the exchanges in flight, and when each is given up.
 *
 * An exchange is one SYNC of a client, through three states:
 *   INFLIGHT  the SYNC was read; its envelope is on the way to the scene
 *   REPLIED   its SYNC_REPLY was written at monotonic t3
 *   ACKED     its SYNC_ACK went to the scene; a SYNC_RESULT is due by a
 *             deadline, after which the client gets UNAVAILABLE
 *
 * gate_exchange_t holds one connection's exchanges in GATE_EXCHANGE_SLOTS
 * slots, direct-mapped by seq: seq's home is slot seq % SLOTS, where a
 * client counting its seqs up finds every exchange in one probe. A seq
 * whose home is taken goes elsewhere and counts as away; only while one is
 * away are all slots searched.
 *
 * gate_awaits_t is the gate-wide queue of SYNC_RESULT deadlines, in the
 * order they fall, so the gate's timer finds what is due without visiting
 * every connection. An entry names (connection, seq, deadline); it expires
 * the exchange only if that exchange still awaits with that very deadline
 * (a result that came, or a seq reused since, leaves it harmless).
 *
 * Only the gate's event loop thread touches either. */
#ifndef GATE_EXCHANGE_H
#define GATE_EXCHANGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How a client's message came, and so how its answer goes. */
typedef enum { GATE_VIA_STREAM, GATE_VIA_UDP } gate_via_t;

#define GATE_EXCHANGE_SLOTS 32       /* exchanges in flight per connection: above the SYNC burst */
#define GATE_EXCHANGE_US    5000000  /* an ACK later than this is lost (PROTOCOL) */

typedef struct gate_exchange_t gate_exchange_t;

/* NULL when out of memory. */
gate_exchange_t *gate_exchange_new(void);
void gate_exchange_destroy(gate_exchange_t **self_p);

/* A SYNC of seq, read at monotonic now, that came via.
 * False when every slot is in flight. A seq repeated before its reply
 * keeps one slot; a REPLIED one reused starts over. */
bool gate_exchange_begin(gate_exchange_t *self, uint64_t seq, gate_via_t via, int64_t now);
/* Whether seq still awaits its SYNC_REPLY. */
bool gate_exchange_inflight(const gate_exchange_t *self, uint64_t seq);
/* Frees seq's INFLIGHT slot (its envelope never left); *via tells how it
 * came. False when seq is not in flight. */
bool gate_exchange_cancel(gate_exchange_t *self, uint64_t seq, gate_via_t *via);

/* seq's SYNC_REPLY is written. Returns -1 when seq is not in flight, else
 * how the SYNC came (GATE_VIA_UDP: its reply goes back that way). t3 is
 * read now from the monotonic clock, or with later a stream exchange's t3
 * is left to the next gate_exchange_stamp, made by the write that carries
 * it. */
int  gate_exchange_reply(gate_exchange_t *self, uint64_t seq, bool later);
/* Every REPLIED exchange whose t3 was left for later gets t3. */
void gate_exchange_stamp(gate_exchange_t *self, int64_t t3);

/* seq's SYNC_ACK, read at monotonic t6, that came via: returns t6 - t3,
 * and the exchange awaits its SYNC_RESULT until deadline (the result goes
 * the way the ACK came). -1 when seq matches no REPLIED exchange (PROTOCOL:
 * ignored), or one older than GATE_EXCHANGE_US, which is then freed. */
int64_t gate_exchange_ack(gate_exchange_t *self, uint64_t seq, int64_t t6, gate_via_t via, int64_t deadline);
/* seq's SYNC_RESULT came: frees the ACKED exchange, with *via telling how
 * its ACK came. False when none awaits (it was answered UNAVAILABLE). */
bool gate_exchange_result(gate_exchange_t *self, uint64_t seq, gate_via_t *via);
/* The same, only if seq still awaits with this deadline. */
bool gate_exchange_expire(gate_exchange_t *self, uint64_t seq, int64_t deadline, gate_via_t *via);

typedef struct gate_awaits_t gate_awaits_t;

gate_awaits_t *gate_awaits_new(void);
void gate_awaits_destroy(gate_awaits_t **self_p);
/* Connection conn's exchange seq awaits its SYNC_RESULT until deadline, no
 * earlier than any deadline pushed before. False when out of memory (an
 * ACKED slot nobody watches is freed when its slot is wanted again). */
bool gate_awaits_push(gate_awaits_t *self, uint64_t conn, uint64_t seq, int64_t deadline);
/* The first entry due by now, removed: true with *conn, *seq, *deadline. */
bool gate_awaits_pop_due(gate_awaits_t *self, int64_t now, uint64_t *conn, uint64_t *seq, int64_t *deadline);
size_t gate_awaits_len(const gate_awaits_t *self);

#endif
