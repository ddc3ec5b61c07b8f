/* tests/e2e.h - helpers for end-to-end tests: start the real ticksync-gate
 * and ticksync-scene on loopback ports, and a raw TCP client that speaks
 * PROTOCOL.md with msgpack-c alone (no project code), as any game might. */
#ifndef TESTS_E2E_H
#define TESTS_E2E_H

#include <msgpack.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define E2E_MAX 2   /* most gates, and most scenes, of one stack */

/* A stack on loopback: ports come from the test process's pid, so tests
 * running side by side never meet, and the same process restarting a stack
 * gets the same ports and databases. */
typedef struct {
    int   scenes, gates;
    pid_t scene[E2E_MAX], gate[E2E_MAX];
    int   port[E2E_MAX], metrics_port[E2E_MAX];        /* per gate */
    int   scene_port[E2E_MAX], admin_port[E2E_MAX];    /* per scene */
    char  dir[64], db[E2E_MAX][96], endpoints[160];
    char  scene_log[E2E_MAX][96];   /* each scene's stderr (removed at stop unless E2E_KEEP_LOGS is set) */
    const char *const *gate_extra, *const *scene_extra;   /* more flags, NULL-ended */
} e2e_stack_t;

/* Starts scenes shards (left down when !run_scenes) and gates gates over
 * them; gate_extra and scene_extra are more flags (NULL-ended, may be NULL,
 * must outlive the stack). Waits until every gate accepts and has PINGed. */
void e2e_start_cluster(e2e_stack_t *s, int scenes, int gates, bool run_scenes, const char *const *gate_extra,
                       const char *const *scene_extra);
/* Gates first, then the shards, and no wait for the gates to have reached
 * them: what a deploy that starts everything at once looks like. */
void e2e_start_cluster_cold(e2e_stack_t *s, int scenes, int gates);
/* One scene and one gate. */
void e2e_start(e2e_stack_t *s, bool with_scene, const char *const *gate_extra);
/* (Re)starts one process of the stack on its own ports and database, with
 * s->gate_extra or s->scene_extra. */
void e2e_start_scene(e2e_stack_t *s, int k);
void e2e_start_gate(e2e_stack_t *s, int k);
/* Stops everything left running and removes the stack's folder. */
void e2e_stop(e2e_stack_t *s);
/* Starts argv (it dies with the test), its stdout to out (truncated) when
 * not NULL. */
pid_t e2e_spawn(const char *const argv[], const char *out);
/* Sends SIGTERM and waits; returns the exit status. */
int e2e_term(pid_t pid);

int64_t e2e_mono_us(void);

/* A client connection; _small with a receive buffer of rcvbuf bytes (0:
 * the default), as a client that stops reading soon fills. */
int  e2e_connect(int port);
int  e2e_connect_small(int port, int rcvbuf);
/* True once something accepts TCP on the loopback port. */
bool e2e_can_connect(int port);
/* GET path from a loopback port: returns the status (0 when it cannot
 * connect) and the body (malloc'd, caller frees) in *body when not NULL. */
int  e2e_http_get(int port, const char *path, char **body);
/* The value of one series of a /metrics page ("name" or "name{labels}"),
 * -1 when absent. */
long long e2e_metric(int port, const char *series);
/* True when a line of the file holds needle. */
bool e2e_file_contains(const char *path, const char *needle);
/* Runs a shell command; returns its exit status and its standard output
 * (malloc'd) in *out when not NULL. */
int  e2e_run(const char *cmd, char **out);
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
int e2e_login_small(int port, uint64_t player_id, int rcvbuf);

void e2e_sleep_us(int64_t us);
/* One exchange with user-space delays: up before each client->gate message,
 * down before the client reads SYNC_REPLY's t4, turnaround between t4 and
 * t5. Asserts the replies' shape; returns SYNC_RESULT's rtt. */
int64_t e2e_exchange(int fd, uint64_t seq, int64_t up, int64_t down, int64_t turnaround);
/* The round trip the last e2e_exchange really gave the server to measure:
 * from SYNC_REPLY's t3 to the SYNC_ACK's send (one host, one real-time
 * clock), less the turnaround t5 - t4. At least up + down; more when this
 * machine ran the test late, which the server then rightly measures too.
 * The gate stamps the ACK's arrival somewhere in its send: _after_us is
 * the same figure read once send returned, so the server's lies between
 * the two (a test preempted around its send widens the gap). */
int64_t e2e_last_applied_us(void);
int64_t e2e_last_applied_after_us(void);
/* One column of a player's row in the SQLite file, INT64_MIN without a row. */
int64_t e2e_db_value(const char *db, uint64_t player, const char *column);
/* The first column of the first row of a query of the SQLite file
 * (INT64_MIN: no row). */
int64_t e2e_db_query(const char *db, const char *sql);
/* Reads the next message and asserts it is ERROR code with seq. */
void e2e_expect_error(int fd, int64_t seq, int64_t code);
/* A SYNC, its SYNC_REPLY asserted (seq echoed), then the SYNC_ACK; what
 * answers the ACK (SYNC_RESULT, or an ERROR) is the caller's to read. */
void e2e_sync_then_ack(int fd, uint64_t seq);
/* A SYNC while the player's shard cannot be reached: it still gets its
 * SYNC_REPLY, and its SYNC_ACK gets ERROR UNAVAILABLE. */
void e2e_sync_unmeasured(int fd, uint64_t seq);

/* WebSocket (the gate's --ws-listen). ws_listen is "127.0.0.1:PORT" on a
 * port of the test's own (e2e_ws_port), for a gate's flags. ws_open
 * connects and sends the handshake (with Origin unless NULL); the
 * response's head goes to status. ws_frame sends one frame as given;
 * ws_send one masked binary frame holding the array fmt describes (as
 * e2e_send); ws_recv reads one binary message (false on a Close, EOF or
 * timeout); ws_close_code skips to the gate's Close and returns its code
 * (-1: none came). */
int         e2e_ws_port(void);
const char *e2e_ws_listen(void);
int  e2e_ws_open(int port, const char *origin, char *status, size_t cap);
void e2e_ws_frame(int fd, bool fin, int opcode, const void *payload, size_t len, bool masked);
void e2e_ws_send(int fd, const char *fmt, ...);
bool e2e_ws_recv(int fd, msgpack_unpacked *out, int timeout_ms);
int  e2e_ws_close_code(int fd, int timeout_ms);

#endif
