/* tests/freeport.h - the loopback ports a test's servers take, as
 * tests/ports.sh gives them to the shell tests: a slot drawn from the
 * test's PID (so tests running at once spread out), or the next one whose
 * ports are all free. A port some other program holds (this machine's own
 * services among them) would fail a server's start. */
#ifndef TS_TESTS_FREEPORT_H
#define TS_TESTS_FREEPORT_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <unistd.h>

/* Whether nothing holds port on 127.0.0.1, for TCP or UDP (the gate takes
 * both on its listen port): a bind without SO_REUSEADDR fails on a port in
 * use, a listener on every address included. */
static inline bool test_port_free(int port)
{
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t) port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    bool free_ = true;
    for (int type = 0; type < 2 && free_; type++) {
        int fd = socket(AF_INET, type ? SOCK_DGRAM : SOCK_STREAM, 0);
        free_ = fd >= 0 && bind(fd, (struct sockaddr *) &a, sizeof a) == 0;
        if (fd >= 0)
            close(fd);
    }
    return free_;
}

/* low + k * width for the first slot k, from the PID's on, whose width
 * ports are all free; the PID's own slot when every one is taken (the
 * server then says which port failed). */
static inline int test_free_ports(int low, int slots, int width)
{
    int k0 = (int) (getpid() % slots);
    for (int n = 0; n < slots; n++) {
        int base = low + ((k0 + n) % slots) * width, i = 0;
        while (i < width && test_port_free(base + i))
            i++;
        if (i == width)
            return base;
    }
    return low + k0 * width;
}

#endif
