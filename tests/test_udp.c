/* tests/test_udp.c - the gate's admission of UDP datagrams: each way a
 * datagram can be wrong has its own verdict, checked in PROTOCOL's order. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "conntab.h"
#include "fakeport.h"
#include "udp.h"
#include "udptag.h"

static gate_conntab_t *t;
static gate_conn_t *c;
static int listener, client;
static ts_decoder_t *dec;
static uint8_t key[TS_UDP_KEY_BYTES];
static ts_metrics_t *reg;
static gate_stats_t stats;
static gate_session_config_t cfg;
static fake_port_t fake;

/* A real TCP connection on loopback, so the connection has a peer host,
 * carrying a session welcomed with a udp_key (read from its WELCOME). */
static void setup(void)
{
    t = gate_conntab_new();
    dec = ts_decoder_new();
    listener = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET };
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    cr_assert_eq(bind(listener, (struct sockaddr *) &a, sizeof a), 0);
    listen(listener, 1);
    getsockname(listener, (struct sockaddr *) &a, &len);
    client = socket(AF_INET, SOCK_STREAM, 0);
    cr_assert_eq(connect(client, (struct sockaddr *) &a, sizeof a), 0);
    c = gate_conntab_add(t, accept(listener, NULL, NULL), GATE_TRANSPORT_TCP, NULL, 1024);
    reg = ts_metrics_new(TS_METRICS_ONE_WRITER);
    gate_stats_init(&stats, reg);
    cfg = (gate_session_config_t) { .sync_rate = 20, .udp = true, .dec = dec, .stats = &stats };
    fake_port_init(&fake);
    static fake_link_t link;
    gate_session_t *s = gate_session_new(&cfg, &fake.port, &link, gate_conn_id(c), true, 0);
    gate_conn_attach(c, s);
    uint8_t hello[64];
    gate_session_frame(s, hello, fake_hello(1, 5, NULL, 0, hello, sizeof hello), 0, 0);
    cr_assert(fake_last(&link)->u.welcome.has_udp_key);
    memcpy(key, fake_last(&link)->u.welcome.udp_key, sizeof key);
}

static void teardown(void)
{
    gate_conntab_destroy(&t);
    ts_decoder_destroy(&dec);
    ts_metrics_destroy(&reg);
    close(client);
    close(listener);
}

static struct sockaddr_storage host(const char *ip)
{
    struct sockaddr_storage s = { 0 };
    struct sockaddr_in *a = (struct sockaddr_in *) &s;
    a->sin_family = AF_INET;
    a->sin_port = htons(5555);
    inet_pton(AF_INET, ip, &a->sin_addr);
    return s;
}

static size_t wrap(const uint8_t *msg, size_t len, uint8_t *out)
{
    return ts_udptag_wrap(gate_conn_id(c), key, msg, len, out, 1200);
}

Test(udp, admits_sync_and_ack_and_names_every_other_case, .init = setup, .fini = teardown)
{
    const uint8_t sync[] = { 0x93, 0x10, 0x01, 0x05 };
    const uint8_t hello[] = { 0x95, 0x01, 0x00, 0x01, 0x05, 0xc0 };
    uint8_t d[1200];
    struct sockaddr_storage same = host("127.0.0.1"), other = host("127.0.0.2");
    gate_conn_t *who = NULL;
    ts_msg_t m;
    size_t n = wrap(sync, sizeof sync, d);
    cr_assert_eq(gate_udp_admit(t, dec, d, n, &same, &who, &m), GATE_UDP_OK);
    cr_assert_eq(who, c);
    cr_assert_eq(m.type, TS_SYNC);
    cr_assert_eq(m.u.sync.t1, 5);
    cr_assert_eq(gate_udp_admit(t, dec, d, 12, &same, &who, &m), GATE_UDP_SHORT);
    cr_assert_eq(gate_udp_admit(t, dec, d, n, &other, &who, &m), GATE_UDP_SOURCE);
    d[n - 1] ^= 1;
    cr_assert_eq(gate_udp_admit(t, dec, d, n, &same, &who, &m), GATE_UDP_TAG);
    n = wrap(hello, sizeof hello, d);
    cr_assert_eq(gate_udp_admit(t, dec, d, n, &same, &who, &m), GATE_UDP_TYPE);
    const uint8_t junk[] = { 0xc1 };
    n = wrap(junk, 1, d);
    cr_assert_eq(gate_udp_admit(t, dec, d, n, &same, &who, &m), GATE_UDP_MESSAGE);
    n = ts_udptag_wrap(gate_conn_id(c) + (1ULL << 32), key, sync, sizeof sync, d, sizeof d);
    cr_assert_eq(gate_udp_admit(t, dec, d, n, &same, &who, &m), GATE_UDP_SESSION, "another generation");
    cr_assert_str_eq(gate_udp_verdict_name(GATE_UDP_SOURCE), "source");
}
