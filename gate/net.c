/* gate/net.c - see net.h. */
#include "net.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "recvstamp.h"

static int open_bound(const struct sockaddr_storage *addr, socklen_t len, int type, char *err)
{
    int fd = socket(addr->ss_family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(err, TS_ERR_MAX, "socket: %s", strerror(errno));
        return -1;
    }
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    ts_stamp_arrivals(fd);
    if (bind(fd, (const struct sockaddr *) addr, len) < 0) {
        snprintf(err, TS_ERR_MAX, "bind: %s", strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

int gate_net_listen_tcp(const struct sockaddr_storage *addr, socklen_t len, char *err)
{
    int fd = open_bound(addr, len, SOCK_STREAM, err);
    if (fd >= 0 && listen(fd, 4096) < 0) {
        snprintf(err, TS_ERR_MAX, "listen: %s", strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

int gate_net_bind_udp(const struct sockaddr_storage *addr, socklen_t len, char *err)
{
    return open_bound(addr, len, SOCK_DGRAM, err);
}
