/* lib/ticksync/netthread.h - private to libticksync: the client's network
 * thread. It blocks in poll on the sockets it is told to watch, reads what
 * arrives the moment it arrives, stamps it with the local time it reached
 * the host, and queues it in a fixed ring for the game's thread to take.
 * It only ever reads: the game's thread writes, connects and decides.
 *
 * For a game that calls ticksync_client_run once a frame on a platform
 * whose kernel gives no receive stamp (Windows), this is what keeps a
 * reply's t4 from waiting for the next frame. */
#ifndef TICKSYNC_NETTHREAD_H
#define TICKSYNC_NETTHREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sock.h"

#define TS_NET_CHUNK 1500   /* bytes a queued read holds at most: a datagram, or part of the TCP stream */

typedef enum {
    TS_NET_TCP,      /* bytes of the TCP stream, in order */
    TS_NET_UDP,      /* one datagram */
    TS_NET_CLOSED,   /* the TCP connection ended (EOF or an error); nothing more comes from it */
} ts_net_kind_t;

typedef struct {
    ts_net_kind_t kind;
    int64_t       at;                  /* local time (ticksync_local_us) the bytes reached the host */
    size_t        len;
    uint8_t       data[TS_NET_CHUNK];
} ts_net_chunk_t;

typedef struct ts_netthread_t ts_netthread_t;

/* Starts the thread, watching nothing. NULL when it cannot start. */
ts_netthread_t *ts_netthread_new(void);
/* Stops and joins the thread, and closes every socket it was handed. */
void ts_netthread_destroy(ts_netthread_t **self_p);

/* From now on the thread reads tcp and udp (either may be TS_SOCK_NONE).
 * The sockets it watched before become its own: it closes them, so a read
 * it is in the middle of never meets a closed socket. What it queued from
 * them and was not taken yet is dropped. */
void ts_netthread_watch(ts_netthread_t *self, ts_sock_t tcp, ts_sock_t udp);

/* Moves the oldest queued read of the sockets now watched into *out.
 * False when there is none. */
bool ts_netthread_take(ts_netthread_t *self, ts_net_chunk_t *out);

#endif
