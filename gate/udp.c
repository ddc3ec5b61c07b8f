/* gate/udp.c - see udp.h. The session id is the connection id, so the
 * lookup is the connection table's; the tag is checked before anything of
 * the message is looked at. */
#include "udp.h"

#include <netinet/in.h>
#include <string.h>

#include "conntab.h"
#include "datagram.h"

/* Whether from is the host of the session's TCP peer (ports may differ
 * through NAT). */
static bool same_host(const struct sockaddr_storage *from, const struct sockaddr_storage *peer)
{
    if (from->ss_family != peer->ss_family)
        return false;
    if (from->ss_family == AF_INET)
        return ((const struct sockaddr_in *) from)->sin_addr.s_addr
               == ((const struct sockaddr_in *) peer)->sin_addr.s_addr;
    if (from->ss_family == AF_INET6)
        return memcmp(&((const struct sockaddr_in6 *) from)->sin6_addr,
                      &((const struct sockaddr_in6 *) peer)->sin6_addr, sizeof(struct in6_addr)) == 0;
    return false;
}

gate_udp_verdict_t gate_udp_admit(const gate_conntab_t *conns, ts_decoder_t *dec, const uint8_t *dgram, size_t len,
                                  const struct sockaddr_storage *from, gate_conn_t **conn, ts_msg_t *msg)
{
    ts_dgram_t d;
    if (ts_dgram_parse(dgram, len, &d) < 0)
        return GATE_UDP_SHORT;
    gate_conn_t *c = gate_conntab_get(conns, d.session_id);
    gate_session_t *s = c && gate_conn_state(c) == GATE_CONN_OPEN ? gate_conn_session(c) : NULL;
    if (!s || !gate_session_udp(s))
        return GATE_UDP_SESSION;
    if (!gate_session_udp_check(s, d.msg, d.msg_len, d.tag))
        return GATE_UDP_TAG;
    if (!same_host(from, gate_conn_peer(c)))
        return GATE_UDP_SOURCE;
    if (ts_msg_decode_with(dec, d.msg, d.msg_len, TS_FROM_CLIENT, msg) != TS_OK)
        return GATE_UDP_MESSAGE;
    if (msg->type != TS_SYNC && msg->type != TS_SYNC_ACK)
        return GATE_UDP_TYPE;
    *conn = c;
    return GATE_UDP_OK;
}

const char *gate_udp_verdict_name(gate_udp_verdict_t v)
{
    static const char *const names[] = { "ok", "short", "session", "tag", "source", "message", "type" };
    return v < GATE_UDP_VERDICTS ? names[v] : "unknown";
}
