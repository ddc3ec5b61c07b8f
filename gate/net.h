/* gate/net.h - every socket call of the gate that is not a read or write:
 * listening sockets (addresses come from lib/addr.h), which stamp arrivals
 * (lib/recvstamp.h). Errors go to a caller's buffer. */
#ifndef GATE_NET_H
#define GATE_NET_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>

#include "addr.h"
#include "err.h"   /* TS_ERR_MAX: the size of err */

/* A non-blocking listening TCP socket (SO_REUSEADDR) or bound UDP socket.
 * Returns the fd, or -1 with a reason in err. */
int gate_net_listen_tcp(const struct sockaddr_storage *addr, socklen_t len, char *err);
int gate_net_bind_udp(const struct sockaddr_storage *addr, socklen_t len, char *err);

#endif
