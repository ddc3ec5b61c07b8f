/* tests/test_net.c - the gate's listening sockets: TCP and UDP on the same
 * port number, non-blocking, and a clear error for a port in use. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net.h"

Test(net, tcp_and_udp_share_a_port_and_do_not_block)
{
    struct sockaddr_storage a;
    socklen_t len;
    char err[TS_ERR_MAX];
    cr_assert_eq(ts_addr_parse("127.0.0.1:0", &a, &len, err), 0);
    int tcp = gate_net_listen_tcp(&a, len, err);
    cr_assert_geq(tcp, 0, "%s", err);
    cr_assert(fcntl(tcp, F_GETFL) & O_NONBLOCK);
    struct sockaddr_in bound;
    socklen_t bl = sizeof bound;
    getsockname(tcp, (struct sockaddr *) &bound, &bl);
    ((struct sockaddr_in *) &a)->sin_port = bound.sin_port;
    int udp = gate_net_bind_udp(&a, len, err);
    cr_assert_geq(udp, 0, "the same port number over UDP: %s", err);
    int again = gate_net_listen_tcp(&a, len, err);
    cr_assert_eq(again, -1, "a port in use");
    cr_assert(strstr(err, "bind"), "%s", err);
    close(tcp);
    close(udp);
}
