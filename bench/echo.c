/* bench/echo.c - the ceiling for bench/loadgen: a minimal epoll server on
 * one thread that writes every byte it reads straight back. Frames sent to
 * it come back as they went, so a client that speaks frames measures the
 * cost of the kernel, loopback and one event loop, and nothing else.
 *
 *   ticksync-echo [HOST:]PORT        (until SIGINT/SIGTERM)
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "addr.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
    (void) sig;
    stop = 1;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: ticksync-echo HOST:PORT\n");
        return 2;
    }
    struct sockaddr_storage addr;
    socklen_t len;
    char err[TS_ERR_MAX];
    if (ts_addr_parse(argv[1], &addr, &len, err) < 0) {
        fprintf(stderr, "ticksync-echo: %s\n", err);
        return 2;
    }
    struct rlimit r;
    if (getrlimit(RLIMIT_NOFILE, &r) == 0) {
        r.rlim_cur = r.rlim_max;
        setrlimit(RLIMIT_NOFILE, &r);
    }
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    int lfd = socket(addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK, 0), one = 1;
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(lfd, (struct sockaddr *) &addr, len) < 0 || listen(lfd, 4096) < 0) {
        fprintf(stderr, "ticksync-echo: cannot listen on %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    int ep = epoll_create1(0);
    struct epoll_event ev = { .events = EPOLLIN, .data.fd = lfd }, evs[256];
    epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
    static char buf[65536];
    while (!stop) {
        int n = epoll_wait(ep, evs, 256, 200);
        for (int i = 0; i < n; i++) {
            int fd = evs[i].data.fd;
            if (fd == lfd) {
                int c;
                while ((c = accept4(lfd, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
                    setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                    struct epoll_event cev = { .events = EPOLLIN, .data.fd = c };
                    epoll_ctl(ep, EPOLL_CTL_ADD, c, &cev);
                }
                continue;
            }
            ssize_t got = read(fd, buf, sizeof buf);
            if (got <= 0) {
                if (got == 0 || errno != EAGAIN)
                    close(fd);
                continue;
            }
            /* back it goes; a client that does not read loses the rest */
            for (ssize_t off = 0; off < got;) {
                ssize_t w = write(fd, buf + off, (size_t) (got - off));
                if (w <= 0)
                    break;
                off += w;
            }
        }
    }
    return 0;
}
