/* lib/ticksync/sock.h - private to libticksync: the few socket calls the
 * client makes, on POSIX and on Winsock (Windows, built with mingw-w64).
 * Sockets are non-blocking from birth; errors are read with
 * ts_sock_error() and judged with the TS_SOCK_* tests. Not installed. */
#ifndef TICKSYNC_SOCK_H
#define TICKSYNC_SOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ticksync.h"   /* ticksync_local_us */

/* A read's fallback stamp: the moment it returns (see ts_sock_recv_at). */
#define TS_SOCK_STAMP_NOW INT64_MIN

#ifdef _WIN32
#include <winsock2.h>
#include <ws2tcpip.h>

typedef SOCKET ts_sock_t;
typedef WSAPOLLFD ts_pollfd_t;
#define TS_SOCK_NONE INVALID_SOCKET

static inline int  ts_sock_error(void) { return WSAGetLastError(); }
static inline bool ts_sock_would_block(int e) { return e == WSAEWOULDBLOCK; }
static inline bool ts_sock_in_progress(int e) { return e == WSAEWOULDBLOCK || e == WSAEINPROGRESS; }
static inline bool ts_sock_interrupted(int e) { return e == WSAEINTR; }
static inline void ts_sock_close(ts_sock_t s) { closesocket(s); }
static inline int  ts_poll(ts_pollfd_t *p, size_t n, int timeout_ms) { return WSAPoll(p, (ULONG) n, timeout_ms); }
static inline long ts_sock_send(ts_sock_t s, const void *b, size_t n) { return send(s, (const char *) b, (int) n, 0); }
static inline long ts_sock_recv(ts_sock_t s, void *b, size_t n) { return recv(s, (char *) b, (int) n, 0); }

static inline void ts_sleep_us(long long us) { Sleep((DWORD) ((us + 999) / 1000)); }

/* Winsock gives no receive stamp on TCP, nor on UDP short of Windows 10's
 * SIO_TIMESTAMPING: a read is stamped with fallback, the local time the
 * caller knew its data was there: the poll that said the socket was
 * readable, for the first read after it. A later read of the same wake-up
 * may return what came after that poll, so it is stamped as it returns
 * (fallback TS_SOCK_STAMP_NOW): never before its data came, which the
 * error bound needs (an early t4 shortens the round trip the bound is made
 * of), at the cost of the read's own time. */
static inline void ts_sock_stamp_arrivals(ts_sock_t s) { (void) s; }
static inline long ts_sock_recv_at(ts_sock_t s, void *b, size_t n, int64_t fallback, int64_t *at)
{
    long r = ts_sock_recv(s, b, n);
    *at = fallback == TS_SOCK_STAMP_NOW ? ticksync_local_us() : fallback;
    return r;
}

/* The error a non-blocking connect ended with (0: connected). */
static inline int ts_sock_pending_error(ts_sock_t s)
{
    int e = 0, len = sizeof e;
    getsockopt(s, SOL_SOCKET, SO_ERROR, (char *) &e, &len);
    return e;
}

static inline const char *ts_sock_describe(int e)
{
    static char text[48];
    snprintf(text, sizeof text, "Winsock error %d", e);
    return text;
}

/* Winsock wants WSAStartup before any socket; once per process is enough
 * (the matching WSACleanup is left to process exit). */
static inline int ts_sock_startup(void)
{
    static bool started;
    WSADATA wsa;
    if (!started && WSAStartup(MAKEWORD(2, 2), &wsa) != 0)
        return -1;
    started = true;
    return 0;
}

static inline ts_sock_t ts_sock_open(int family, int type)
{
    ts_sock_t s = socket(family, type, 0);
    u_long one = 1;
    if (s != INVALID_SOCKET && ioctlsocket(s, FIONBIO, &one) != 0) {
        closesocket(s);
        return INVALID_SOCKET;
    }
    return s;
}

#else
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "recvstamp.h"   /* lib/: the kernel's receive stamps, shared with the gate */

typedef int ts_sock_t;
typedef struct pollfd ts_pollfd_t;
#define TS_SOCK_NONE (-1)

static inline int  ts_sock_error(void) { return errno; }
static inline bool ts_sock_would_block(int e) { return e == EAGAIN || e == EWOULDBLOCK; }
static inline bool ts_sock_in_progress(int e) { return e == EINPROGRESS; }
static inline bool ts_sock_interrupted(int e) { return e == EINTR; }
static inline void ts_sock_close(ts_sock_t s) { close(s); }
static inline int  ts_poll(ts_pollfd_t *p, size_t n, int timeout_ms) { return poll(p, (nfds_t) n, timeout_ms); }
static inline int  ts_sock_startup(void) { return 0; }
static inline long ts_sock_send(ts_sock_t s, const void *b, size_t n) { return send(s, b, n, MSG_NOSIGNAL); }
static inline long ts_sock_recv(ts_sock_t s, void *b, size_t n) { return recv(s, b, n, 0); }
static inline const char *ts_sock_describe(int e) { return strerror(e); }

static inline void ts_sleep_us(long long us)
{
    struct timespec ts = { .tv_sec = us / 1000000, .tv_nsec = (us % 1000000) * 1000 };
    nanosleep(&ts, NULL);
}

static inline int ts_sock_pending_error(ts_sock_t s)
{
    int e = 0;
    socklen_t len = sizeof e;
    getsockopt(s, SOL_SOCKET, SO_ERROR, &e, &len);
    return e;
}

static inline ts_sock_t ts_sock_open(int family, int type)
{
    return socket(family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
}

/* The kernel stamps each arrival (SO_TIMESTAMPNS, on TCP and UDP alike,
 * as the gate does for its t2); a read returns the stamp of the last byte
 * it took, moved onto the monotonic clock ticksync_local_us reads. Where
 * the kernel gave none (stamping is turned on a moment after the host's
 * first socket asks), the read is stamped now. fallback is unused: the
 * kernel's stamp is always the earlier. */
static inline void ts_sock_stamp_arrivals(ts_sock_t s) { ts_stamp_arrivals(s); }
static inline long ts_sock_recv_at(ts_sock_t s, void *b, size_t n, int64_t fallback, int64_t *at)
{
    int64_t arrived_real, real;
    long r = (long) ts_recv_stamped(s, b, n, NULL, NULL, &arrived_real);
    (void) fallback;
    if (r > 0)
        ts_arrival_clocks(arrived_real, &real, at);
    return r;
}
#endif

#endif
