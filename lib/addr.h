/* lib/addr.h - "HOST:PORT" settings as socket addresses. Pure: no socket
 * is opened. Errors go to a caller's buffer of TS_ERR_MAX bytes. */
#ifndef TS_LIB_ADDR_H
#define TS_LIB_ADDR_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "err.h"   /* TS_ERR_MAX: the size of err */

/* Parses "HOST:PORT" (IPv4 dotted quad, "localhost", or "[v6]:port").
 * Returns 0, or -1 with a reason in err. */
int ts_addr_parse(const char *text, struct sockaddr_storage *addr, socklen_t *len, char *err);

/* Checks a comma-separated list of ZeroMQ endpoints as the gate's
 * --scenes and the scene's --bind take them: tcp://HOST:PORT (HOST a name,
 * an address, [v6] or *; PORT 1-65535) or ipc://PATH. Names are not
 * resolved (ZeroMQ does that when it connects). Returns how many, or -1
 * with a reason in err. */
int ts_addr_endpoints(const char *list, char *err);

/* True for 127.0.0.0/8 and ::1. */
bool ts_addr_is_loopback(const struct sockaddr_storage *addr);

/* The port, in host order (0 for a family other than IPv4 and IPv6). */
uint16_t ts_addr_port(const struct sockaddr_storage *addr);

/* True for a port that browsers (and Node.js) refuse to connect to without
 * trying, one of the Fetch standard's bad ports: a page cannot reach a
 * WebSocket or HTTP listener there. */
bool ts_addr_browsers_refuse(uint16_t port);

#endif
