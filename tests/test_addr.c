/* tests/test_addr.c - HOST:PORT settings as socket addresses. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <string.h>

#include "addr.h"

Test(addr, parses_ipv4_localhost_and_ipv6)
{
    struct sockaddr_storage a;
    socklen_t len;
    char err[TS_ERR_MAX];
    cr_assert_eq(ts_addr_parse("10.1.2.3:7700", &a, &len, err), 0);
    cr_assert_eq(a.ss_family, AF_INET);
    cr_assert_eq(ntohs(((struct sockaddr_in *) &a)->sin_port), 7700);
    cr_assert_eq(ts_addr_port(&a), 7700);
    cr_assert_not(ts_addr_is_loopback(&a));
    cr_assert_eq(ts_addr_parse("localhost:1", &a, &len, err), 0);
    cr_assert(ts_addr_is_loopback(&a));
    cr_assert_eq(ts_addr_parse("127.9.9.9:1", &a, &len, err), 0);
    cr_assert(ts_addr_is_loopback(&a), "all of 127/8");
    cr_assert_eq(ts_addr_parse("[::1]:9171", &a, &len, err), 0);
    cr_assert_eq(a.ss_family, AF_INET6);
    cr_assert(ts_addr_is_loopback(&a));
    cr_assert_eq(len, sizeof(struct sockaddr_in6));
    cr_assert_eq(ts_addr_port(&a), 9171);
}

Test(addr, refuses_what_is_not_host_port)
{
    struct sockaddr_storage a;
    socklen_t len;
    char err[TS_ERR_MAX];
    const char *bad[] = { "7700", ":7700", "1.2.3.4:", "1.2.3.4:70000", "1.2.3.4:x", "example.com:80", "[::1:80" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_assert_eq(ts_addr_parse(bad[i], &a, &len, err), -1, "%s", bad[i]);
}

Test(addr, knows_the_ports_browsers_refuse)
{
    cr_assert(ts_addr_browsers_refuse(6667), "IRC's: a CI run's WebSocket port once");
    cr_assert(ts_addr_browsers_refuse(2049));
    cr_assert(ts_addr_browsers_refuse(10080));
    cr_assert_not(ts_addr_browsers_refuse(7702), "the local stack's");
    cr_assert_not(ts_addr_browsers_refuse(443));
    cr_assert_not(ts_addr_browsers_refuse(6670));
}

Test(addr, checks_zeromq_endpoint_lists_without_resolving)
{
    char err[TS_ERR_MAX];
    cr_assert_eq(ts_addr_endpoints("tcp://127.0.0.1:7710", err), 1);
    cr_assert_eq(ts_addr_endpoints("tcp://scene-0.scene:7710,tcp://scene-1.scene:7710,ipc:///run/s2", err), 3);
    cr_assert_eq(ts_addr_endpoints("tcp://*:7710", err), 1);
    cr_assert_eq(ts_addr_endpoints("tcp://[::1]:7710", err), 1);
    const char *bad[] = { "", "scene-0:7710", "tcp://scene-0", "tcp://:7710", "tcp://h:0", "tcp://h:65536",
                          "tcp://h:77x0", "tcp://a:1,", "tcp://a:1,,tcp://b:2", "udp://h:1", "ipc://" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = 0;
        cr_assert_eq(ts_addr_endpoints(bad[i], err), -1, "'%s' accepted", bad[i]);
        cr_assert(strstr(err, "is not tcp://HOST:PORT"), "%s", err);
    }
}
