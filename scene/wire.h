/* scene/wire.h - messages between the scene's own threads over inproc
 * ZeroMQ sockets (never across processes, so plain structs travel):
 *
 *   router -> worker k  (inproc://ts-worker-k)  'E' | gate identity | ts_env_t[n]
 *   writer -> worker k  (inproc://ts-worker-k)  'L' | scene_load_t
 *   worker -> writer    (inproc://ts-store)     'R' | scene_row_t[n]
 *   worker -> writer    (inproc://ts-store)     'Q' | scene_query_t
 *   worker -> router    (inproc://ts-replies)   gate identity | batch of encoded envelopes
 *
 * Each socket has one owner thread; a frame kind is its first byte. */
#ifndef SCENE_WIRE_H
#define SCENE_WIRE_H

#include <czmq.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "row.h"

#define SCENE_EP_WORKER  "inproc://ts-worker-%d"
#define SCENE_EP_STORE   "inproc://ts-store"
#define SCENE_EP_REPLIES "inproc://ts-replies"

typedef struct {
    int         worker;     /* whose inbox gets the answer */
    uint64_t    player_id;
} scene_query_t;

typedef struct {
    uint64_t    player_id;
    int         found;      /* 0: no row, start afresh */
    scene_row_t row;
} scene_load_t;

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
