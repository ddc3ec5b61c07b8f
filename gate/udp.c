/* gate/udp.c - see udp.h. The session id is the connection id, so the
 * lookup is the connection table's; the tag is checked before anything of
 * the message is looked at. */
#include "udp.h"

#include "datagram.h"

gate_udp_verdict_t gate_udp_admit(const gate_conntab_t *conns, ts_decoder_t *dec, const uint8_t *dgram, size_t len,
                                  const struct sockaddr_storage *from, gate_conn_t **conn, ts_msg_t *msg)
{
    ts_dgram_t d;
    if (ts_dgram_parse(dgram, len, &d) < 0)
        return GATE_UDP_SHORT;
    gate_conn_t *c = gate_conntab_get(conns, d.session_id);
    if (!c || !gate_conn_udp_enabled(c))
        return GATE_UDP_SESSION;
    if (!gate_conn_udp_check(c, d.msg, d.msg_len, d.tag))
        return GATE_UDP_TAG;
    if (!gate_conn_same_host(c, from))
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
