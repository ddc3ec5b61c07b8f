/* gate/udp.h - admission of one UDP datagram (PROTOCOL.md "Framing"):
 * which session it names, whether its tag is that session's, whether it
 * comes from the host of the session's TCP connection, and whether it is a
 * SYNC or SYNC_ACK. Anything else is dropped silently by the caller and
 * counted under the verdict's name: UDP never answers what it cannot
 * authenticate. Pure: no socket calls. */
#ifndef GATE_UDP_H
#define GATE_UDP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "msg.h"

typedef struct gate_conntab_t gate_conntab_t;   /* gate/conntab.h */
typedef struct gate_conn_t gate_conn_t;         /* gate/conn.h */

typedef enum {
    GATE_UDP_OK = 0,
    GATE_UDP_SHORT,      /* not a datagram of PROTOCOL's layout */
    GATE_UDP_SESSION,    /* no welcomed session with UDP by that id */
    GATE_UDP_TAG,        /* wrong tag */
    GATE_UDP_SOURCE,     /* right tag, another host than the session's TCP peer */
    GATE_UDP_MESSAGE,    /* the message does not decode */
    GATE_UDP_TYPE,       /* a type other than SYNC and SYNC_ACK */
    GATE_UDP_VERDICTS
} gate_udp_verdict_t;

/* Returns GATE_UDP_OK with *conn and *msg filled, or why to drop it. The
 * message is decoded into dec. */
gate_udp_verdict_t gate_udp_admit(const gate_conntab_t *conns, ts_decoder_t *dec, const uint8_t *dgram, size_t len,
                                  const struct sockaddr_storage *from, gate_conn_t **conn, ts_msg_t *msg);

/* "short", "session", ... for metric labels. */
const char *gate_udp_verdict_name(gate_udp_verdict_t v);

#endif
