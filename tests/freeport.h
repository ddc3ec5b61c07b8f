/* tests/freeport.h - the loopback ports a test's servers take, as
 * tests/ports.sh gives them to the shell tests: a slot drawn from the
 * test's PID (so tests running at once spread out), or the next one whose
 * ports are all free. A port some other program holds (this machine's own
 * services among them) would fail a server's start.
 *
 * Criterion runs a file's tests at once, each in its own process. Two of
 * them could see the same slot free and both start servers there (one
 * gate then fails "bind: Address already in use" and its test talks to the
 * other test's gate). So a slot is also claimed: an exclusive flock on a
 * file of its own, held until the process ends. */
#ifndef TS_TESTS_FREEPORT_H
#define TS_TESTS_FREEPORT_H

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#define TEST_PORT_LOCKS "/tmp/ticksync-test-ports"

/* Whether nothing holds port on 127.0.0.1, for TCP or UDP (the gate takes
 * both on its listen port). TCP is asked with SO_REUSEADDR, as the
 * servers bind: a listener fails it, a connection of an earlier test
 * waiting out TIME_WAIT does not. UDP is asked without, so a socket bound
 * with SO_REUSEADDR still counts. */
static inline bool test_port_free(int port)
{
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t) port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    bool free_ = true;
    for (int type = 0; type < 2 && free_; type++) {
        int fd = socket(AF_INET, type ? SOCK_DGRAM : SOCK_STREAM, 0), one = 1;
        if (fd >= 0 && !type)
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        free_ = fd >= 0 && bind(fd, (struct sockaddr *) &a, sizeof a) == 0;
        if (fd >= 0)
            close(fd);
    }
    return free_;
}

/* Claims the slot at base for this process: its lock file's fd (kept open
 * until the process ends), or -1 when another process holds it. */
static inline int test_claim_ports(int base)
{
    char path[64];
    mkdir(TEST_PORT_LOCKS, 01777);
    snprintf(path, sizeof path, TEST_PORT_LOCKS "/%d", base);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) < 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* low + k * width for the first slot k, from the PID's on, that no other
 * test process has claimed and whose width ports are all free; the PID's
 * own slot when every one is taken (the server then says which port
 * failed). */
static inline int test_free_ports(int low, int slots, int width)
{
    int k0 = (int) (getpid() % slots);
    for (int n = 0; n < slots; n++) {
        int base = low + ((k0 + n) % slots) * width, i = 0;
        int claim = test_claim_ports(base);
        if (claim < 0)
            continue;
        while (i < width && test_port_free(base + i))
            i++;
        if (i == width)
            return base;   /* claim stays open: the slot is this process's */
        close(claim);
    }
    return low + k0 * width;
}

#endif
