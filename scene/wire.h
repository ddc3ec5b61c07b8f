/* scene/wire.h - messages between the scene's own threads over inproc
 * ZeroMQ sockets (never across processes, so plain structs travel):
 *
 *   router -> worker k  (inproc://ts-worker-k)  'E' | gate identity | ts_env_t[n]
 *   router -> worker k  (inproc://ts-worker-k)  'G' | gate identity (that gate fell silent)
 *   writer -> worker k  (inproc://ts-worker-k)  'L' | scene_load_t
 *   admin  -> worker k  (inproc://ts-worker-k)  'A' | scene_row_t (a player adopted from its old shard)
 *   admin  -> writer    (inproc://ts-store)     'H' | scene_history_row_t[n] (its history)
 *   worker -> writer    (inproc://ts-store)     'R' | scene_row_t[n]
 *   worker -> writer    (inproc://ts-store)     'Q' | scene_query_t
 *   worker -> router    (inproc://ts-replies)   gate identity | batch of encoded envelopes
 *
 * Each socket has one owner thread; a frame kind is its first byte. Every
 * send goes through scene_send, which counts and logs one that fails. */
#ifndef SCENE_WIRE_H
#define SCENE_WIRE_H

#include <czmq.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "clock.h"
#include "log.h"
#include "metrics.h"
#include "row.h"

#define SCENE_EP_WORKER  "inproc://ts-worker-%d"
#define SCENE_EP_STORE   "inproc://ts-store"
#define SCENE_EP_REPLIES "inproc://ts-replies"

/* How long a worker's dirty rows wait for more before they leave for the
 * writer together: a tenth of the flush interval, at most 5 ms. The writer
 * flushes every flush interval less this hold, so a row is still committed
 * within one flush interval of its exchange (what a SIGKILL can lose). Under
 * load a worker's rows leave in chunks instead of after each read of its
 * inbox, and the store thread wakes 340 times a second, not 1,300
 * (100,000 exchanges/s, bench/RESULTS.md 9f). */
static inline int64_t scene_hold_us(int flush_ms)
{
    int64_t tenth = (int64_t) flush_ms * 100;
    return tenth < 5000 ? tenth : 5000;
}

typedef struct {
    int         worker;     /* whose inbox gets the answer */
    uint64_t    player_id;
} scene_query_t;

typedef struct {
    uint64_t    player_id;
    int         found;      /* 0: no row, start afresh */
    scene_row_t row;
} scene_load_t;

/* Where one thread's sends to one destination are counted when they fail,
 * and logged: the first failure at once, later ones as a count every
 * SCENE_SEND_LOG_US, so a gate that went away cannot flood the log. */
typedef struct {
    ts_metric_t *failed;
    ts_log_t    *log;
    const char  *to;        /* "gate", "worker", "writer", "router" */
    int64_t      next_log;
    uint64_t     unlogged;
} scene_sender_t;

#define SCENE_SEND_LOG_US 10000000

/* Sends the n parts data[i] (len[i] bytes) as one message on sock, with
 * flags (ZMQ_DONTWAIT or 0) on each. A refused part ends the message: a
 * refused first part leaves nothing queued (a ROUTER with
 * ZMQ_ROUTER_MANDATORY refuses a gone or full peer there), and the
 * sockets that could refuse a later part (inproc PUSH, no HWM, blocking)
 * only do so when the context ends. Returns 0, or -1 after counting and
 * logging the failure. */
static inline int scene_send(scene_sender_t *s, void *sock, int flags, int n, const void *const data[],
                             const size_t len[])
{
    for (int i = 0; i < n; i++) {
        int more = i + 1 < n ? ZMQ_SNDMORE : 0, rc;
        while ((rc = zmq_send(sock, data[i], len[i], flags | more)) < 0 && zmq_errno() == EINTR)
            ;
        if (rc >= 0)
            continue;
        ts_metric_add(s->failed, 1);
        s->unlogged++;
        int64_t now = ts_clock_mono_us();
        if (now >= s->next_log) {
            ts_log(s->log, TS_LOG_WARN, "send_failed", "to=%s part=%d error=\"%s\" failures=%llu", s->to, i,
                   zmq_strerror(zmq_errno()), (unsigned long long) s->unlogged);
            s->unlogged = 0;
            s->next_log = now + SCENE_SEND_LOG_US;
        }
        return -1;
    }
    return 0;
}

/* Reads one command from an actor's pipe: true for "$TERM" (or a broken
 * pipe), when the actor is to stop. */
static inline bool scene_pipe_says_stop(zsock_t *pipe)
{
    zmsg_t *cmd = zmsg_recv(pipe);
    char *word = cmd ? zmsg_popstr(cmd) : NULL;
    bool stop = !word || streq(word, "$TERM");
    free(word);
    zmsg_destroy(&cmd);
    return stop;
}

/* Receives the next part of a message into buf (flags as zmq_recv's):
 * returns its real size (more than cap when cut), -1 when none; *more says
 * whether parts follow. */
static inline int scene_recv_part(void *sock, void *buf, size_t cap, int flags, bool *more)
{
    int n = zmq_recv(sock, buf, cap, flags);
    int m = 0;
    size_t sz = sizeof m;
    if (n >= 0)
        zmq_getsockopt(sock, ZMQ_RCVMORE, &m, &sz);
    *more = m != 0;
    return n;
}

/* Receives and drops what is left of a message. */
static inline void scene_recv_rest(void *sock, bool more)
{
    uint8_t sink[64];
    while (more)
        scene_recv_part(sock, sink, sizeof sink, 0, &more);
}

/* The endpoint of worker w's inbox, prefixed '@' (bind) or '>' (connect). */
static inline const char *scene_worker_endpoint(char buf[64], char prefix, int w)
{
    snprintf(buf, 64, "%c" SCENE_EP_WORKER, prefix, w);
    return buf;
}

#endif
