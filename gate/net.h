/* gate/net.h - every socket call of the gate that is not a read or write:
 * address parsing and listening sockets. Errors go to a caller's buffer. */
#ifndef GATE_NET_H
#define GATE_NET_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>

#define GATE_NET_ERR_LEN 256

/* Parses "HOST:PORT" (IPv4 dotted quad, "localhost", or "[v6]:port").
 * Returns 0, or -1 with a reason in err. */
int gate_net_parse(const char *text, struct sockaddr_storage *addr, socklen_t *len, char *err);

/* True for 127.0.0.0/8 and ::1. */
bool gate_net_is_loopback(const struct sockaddr_storage *addr);

/* A non-blocking listening TCP socket (SO_REUSEADDR) or bound UDP socket.
 * Returns the fd, or -1 with a reason in err. */
int gate_net_listen_tcp(const struct sockaddr_storage *addr, socklen_t len, char *err);
int gate_net_bind_udp(const struct sockaddr_storage *addr, socklen_t len, char *err);

#endif
