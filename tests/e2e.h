/* tests/e2e.h - helpers for end-to-end tests: start the real ticksync-gate
 * and ticksync-scene on loopback ports, and a raw TCP client that speaks
 * PROTOCOL.md with msgpack-c alone (no project code), as any game might. */
#ifndef TESTS_E2E_H
#define TESTS_E2E_H

#include <msgpack.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct {
    pid_t gate, scene;
    int   port, scene_port;
    char  dir[64], db[96];
} e2e_stack_t;

/* Starts a scene and a gate; gate_extra are more gate flags (NULL-ended,
 * may be NULL). with_scene false leaves the shard down. */
void e2e_start(e2e_stack_t *s, bool with_scene, const char *const *gate_extra);
void e2e_stop(e2e_stack_t *s);
/* Sends SIGTERM and waits; returns the exit status. */
int e2e_term(pid_t pid);

int64_t e2e_mono_us(void);

/* A client connection. */
int  e2e_connect(int port);
/* Sends one frame holding the msgpack array built by fmt: 'u' uint64,
 * 'i' int64, 'n' nil, 'b' bin (ptr, len), 's' str. */
void e2e_send(int fd, const char *fmt, ...);
void e2e_send_raw(int fd, const void *buf, size_t len);
/* Reads one frame into *out (an array); false on EOF or timeout_ms passing. */
bool e2e_recv(int fd, msgpack_unpacked *out, int timeout_ms);
/* Element i of the received array as an integer. */
int64_t e2e_int(const msgpack_unpacked *m, size_t i);
/* True when the peer has closed (EOF) within timeout_ms. */
bool e2e_closed(int fd, int timeout_ms);
/* HELLO in open mode (nil token) and WELCOME; returns the fd. */
int e2e_login(int port, uint64_t player_id);

#endif
