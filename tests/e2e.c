/* tests/e2e.c - see e2e.h. */
#include "e2e.h"
#include "freeport.h"
#include "http.h"

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int64_t e2e_mono_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Starts argv; its stderr goes to log (appended) when not NULL, its
 * stdout to out (truncated) when not NULL. */
static pid_t spawn_to(const char *const argv[], const char *log, const char *out)
{
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        /* it dies with the test: a test that ends early (a failed check in
         * its fini, a timeout) must not leave a gate or scene running, and
         * holding ctest's output pipe open, which ctest waits on */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
            _exit(127);
        int fd = log ? open(log, O_WRONLY | O_CREAT | O_APPEND, 0644) : -1;
        if (fd >= 0) {
            dup2(fd, 2);
            close(fd);
        }
        fd = out ? open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644) : -1;
        if (fd >= 0) {
            dup2(fd, 1);
            close(fd);
        }
        execv(argv[0], (char *const *) argv);
        _exit(127);
    }
    return pid;
}

static pid_t spawn(const char *const argv[], const char *log)
{
    return spawn_to(argv, log, NULL);
}

pid_t e2e_spawn(const char *const argv[], const char *out)
{
    return spawn_to(argv, NULL, out);
}

/* Connects fd to 127.0.0.1:port; 0 or -1. */
static int connect_loopback(int fd, int port)
{
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t) port) };
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return connect(fd, (struct sockaddr *) &a, sizeof a);
}

bool e2e_can_connect(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    bool ok = connect_loopback(fd, port) == 0;
    close(fd);
    return ok;
}

static void wait_port(int port, const char *what)
{
    for (int i = 0; i < 300 && !e2e_can_connect(port); i++)
        usleep(10000);
    cr_assert(e2e_can_connect(port), "%s did not start on %d", what, port);
}

void e2e_start_scene(e2e_stack_t *s, int k)
{
    char bind[64], admin[64];
    snprintf(bind, sizeof bind, "tcp://127.0.0.1:%d", s->scene_port[k]);
    snprintf(admin, sizeof admin, "127.0.0.1:%d", s->admin_port[k]);
    const char *argv[32] = { TS_SCENE_BIN, "--bind", bind, "--db", s->db[k], "--admin", admin,
                             "--workers", "2", "--log-level", "warn" };
    int n = 11;
    for (int i = 0; s->scene_extra && s->scene_extra[i] && n < 31; i++)
        argv[n++] = s->scene_extra[i];
    argv[n] = NULL;
    s->scene[k] = spawn(argv, s->scene_log[k]);
    wait_port(s->admin_port[k], "scene admin");
}

void e2e_start_gate(e2e_stack_t *s, int k)
{
    char listen[64], metrics[64];
    snprintf(listen, sizeof listen, "127.0.0.1:%d", s->port[k]);
    snprintf(metrics, sizeof metrics, "127.0.0.1:%d", s->metrics_port[k]);
    const char *argv[32] = { TS_GATE_BIN, "--listen", listen, "--scenes", s->endpoints, "--metrics", metrics,
                             "--log-level", "warn" };
    int n = 9;
    for (int i = 0; s->gate_extra && s->gate_extra[i] && n < 31; i++)
        argv[n++] = s->gate_extra[i];
    argv[n] = NULL;
    s->gate[k] = spawn(argv, NULL);
    wait_port(s->port[k], "gate");
    /* the listening socket is opened before the metrics endpoint: a test
     * that reads /metrics at once would race it */
    wait_port(s->metrics_port[k], "gate metrics");
}

/* The first of this test process's ten ports, below the ephemeral range
 * (32768+), chosen once a process, so a stack planned again (a restart)
 * gets the same ports. */
static int base_port(void)
{
    static int base;
    if (!base)
        base = test_free_ports(10000, 2200, 10);
    return base;
}

/* A folder named by this process's id may be one a killed test of an
 * earlier process with the same id left behind (ids wrap at 32,768 here,
 * and a CI run starts tens of thousands of processes): its database files
 * would be read as this stack's. A folder made by the caller (a tmpfs)
 * is kept, only the files go. */
static void remove_db(const char *db)
{
    char path[PATH_MAX];
    static const char *const suffix[] = { "", "-wal", "-shm", "-journal" };
    for (size_t i = 0; i < sizeof suffix / sizeof suffix[0]; i++) {
        snprintf(path, sizeof path, "%s%s", db, suffix[i]);
        unlink(path);
    }
}

static void plan_cluster(e2e_stack_t *s, int scenes, int gates, const char *const *gate_extra,
                         const char *const *scene_extra)
{
    memset(s, 0, sizeof *s);
    s->scene_extra = scene_extra;
    cr_assert(scenes >= 1 && scenes <= E2E_MAX && gates >= 1 && gates <= E2E_MAX);
    s->scenes = scenes;
    s->gates = gates;
    s->gate_extra = gate_extra;
    int base = base_port();
    snprintf(s->dir, sizeof s->dir, "/tmp/ts-e2e-%d", (int) getpid());
    for (int k = 0; k < scenes; k++) {
        s->scene_port[k] = base + 1 + 2 * k;
        s->admin_port[k] = base + 2 + 2 * k;
        snprintf(s->db[k], sizeof s->db[k], "%s/scene%d.db", s->dir, k);
        remove_db(s->db[k]);
        snprintf(s->scene_log[k], sizeof s->scene_log[k], "/tmp/ts-e2e-%d-scene%d.log", (int) getpid(), k);
        unlink(s->scene_log[k]);
        size_t used = strlen(s->endpoints);
        snprintf(s->endpoints + used, sizeof s->endpoints - used, "%stcp://127.0.0.1:%d", k ? "," : "",
                 s->scene_port[k]);
    }
    for (int k = 0; k < gates; k++) {
        s->port[k] = base + 6 + 2 * k;
        s->metrics_port[k] = base + 7 + 2 * k;
    }
}

void e2e_start_cluster(e2e_stack_t *s, int scenes, int gates, bool run_scenes, const char *const *gate_extra,
                       const char *const *scene_extra)
{
    plan_cluster(s, scenes, gates, gate_extra, scene_extra);
    for (int k = 0; run_scenes && k < scenes; k++)
        e2e_start_scene(s, k);
    for (int k = 0; k < gates; k++)
        e2e_start_gate(s, k);
    usleep(run_scenes ? 300000 : 1000000);   /* the gates' first PING round */
}

void e2e_start_cluster_cold(e2e_stack_t *s, int scenes, int gates)
{
    plan_cluster(s, scenes, gates, NULL, NULL);
    for (int k = 0; k < gates; k++)
        e2e_start_gate(s, k);
    for (int k = 0; k < scenes; k++)
        e2e_start_scene(s, k);
}

void e2e_start(e2e_stack_t *s, bool with_scene, const char *const *gate_extra)
{
    e2e_start_cluster(s, 1, 1, with_scene, gate_extra, NULL);
}

int e2e_term(pid_t pid)
{
    int status = -1;
    if (pid <= 0)
        return -1;
    kill(pid, SIGTERM);
    for (int i = 0; i < 500; i++) {
        if (waitpid(pid, &status, WNOHANG) == pid)
            return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        usleep(10000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    return -1;
}

void e2e_stop(e2e_stack_t *s)
{
    for (int k = 0; k < s->gates; k++)
        e2e_term(s->gate[k]);
    for (int k = 0; k < s->scenes; k++)
        e2e_term(s->scene[k]);
    for (int k = 0; k < s->scenes; k++) {
        if (getenv("E2E_KEEP_LOGS") == NULL)
            unlink(s->scene_log[k]);
    }
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", s->dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", s->dir);
}

int e2e_connect(int port)
{
    return e2e_connect_small(port, 0);
}

int e2e_connect_small(int port, int rcvbuf)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (rcvbuf > 0)   /* before connect, or the window is already advertised */
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    cr_assert_eq(connect_loopback(fd, port), 0, "connect: %s", strerror(errno));
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

void e2e_send_raw(int fd, const void *buf, size_t len)
{
    cr_assert_eq(send(fd, buf, len, MSG_NOSIGNAL), (ssize_t) len);
}

/* Packs the msgpack array fmt describes (see e2e_send) into sb. */
static void pack_fmt(msgpack_sbuffer *sb, const char *fmt, va_list ap)
{
    msgpack_sbuffer_init(sb);
    msgpack_packer pk;
    msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
    msgpack_pack_array(&pk, strlen(fmt));
    for (const char *f = fmt; *f; f++) {
        if (*f == 'u')
            msgpack_pack_uint64(&pk, va_arg(ap, uint64_t));
        else if (*f == 'i')
            msgpack_pack_int64(&pk, va_arg(ap, int64_t));
        else if (*f == 'n')
            msgpack_pack_nil(&pk);
        else if (*f == 'b') {
            const void *p = va_arg(ap, const void *);
            size_t n = va_arg(ap, size_t);
            msgpack_pack_bin(&pk, n);
            msgpack_pack_bin_body(&pk, p, n);
        } else if (*f == 's') {
            const char *str = va_arg(ap, const char *);
            msgpack_pack_str(&pk, strlen(str));
            msgpack_pack_str_body(&pk, str, strlen(str));
        }
    }
}

void e2e_send(int fd, const char *fmt, ...)
{
    msgpack_sbuffer sb;
    va_list ap;
    va_start(ap, fmt);
    pack_fmt(&sb, fmt, ap);
    va_end(ap);
    uint8_t hdr[4] = { (uint8_t) (sb.size >> 24), (uint8_t) (sb.size >> 16), (uint8_t) (sb.size >> 8), (uint8_t) sb.size };
    e2e_send_raw(fd, hdr, 4);
    e2e_send_raw(fd, sb.data, sb.size);
    msgpack_sbuffer_destroy(&sb);
}

static bool read_full(int fd, uint8_t *buf, size_t len, int64_t deadline)
{
    size_t have = 0;
    while (have < len) {
        int left = (int) ((deadline - e2e_mono_us()) / 1000);
        struct pollfd p = { .fd = fd, .events = POLLIN };
        if (left <= 0 || poll(&p, 1, left) <= 0)
            return false;
        ssize_t n = recv(fd, buf + have, len - have, 0);
        if (n <= 0)
            return false;
        have += (size_t) n;
    }
    return true;
}

bool e2e_recv(int fd, msgpack_unpacked *out, int timeout_ms)
{
    int64_t deadline = e2e_mono_us() + timeout_ms * 1000LL;
    uint8_t hdr[4], body[4096];
    if (!read_full(fd, hdr, 4, deadline))
        return false;
    size_t n = (size_t) hdr[0] << 24 | (size_t) hdr[1] << 16 | (size_t) hdr[2] << 8 | hdr[3];
    cr_assert(n > 0 && n <= sizeof body, "frame length %zu", n);
    if (!read_full(fd, body, n, deadline))
        return false;
    size_t off = 0;
    cr_assert_eq(msgpack_unpack_next(out, (const char *) body, n, &off), MSGPACK_UNPACK_SUCCESS);
    cr_assert_eq(out->data.type, MSGPACK_OBJECT_ARRAY);
    return true;
}

int64_t e2e_int(const msgpack_unpacked *m, size_t i)
{
    cr_assert_lt(i, m->data.via.array.size);
    const msgpack_object *o = &m->data.via.array.ptr[i];
    cr_assert(o->type == MSGPACK_OBJECT_POSITIVE_INTEGER || o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER);
    return o->via.i64;
}

bool e2e_closed(int fd, int timeout_ms)
{
    int64_t deadline = e2e_mono_us() + timeout_ms * 1000LL;
    uint8_t buf[512];
    for (;;) {
        int left = (int) ((deadline - e2e_mono_us()) / 1000);
        struct pollfd p = { .fd = fd, .events = POLLIN };
        if (left <= 0 || poll(&p, 1, left) <= 0)
            return false;
        ssize_t n = recv(fd, buf, sizeof buf, 0);
        if (n <= 0)
            return true;
    }
}

int e2e_login(int port, uint64_t player_id)
{
    return e2e_login_small(port, player_id, 0);
}

int e2e_login_small(int port, uint64_t player_id, int rcvbuf)
{
    int fd = e2e_connect_small(port, rcvbuf);
    e2e_send(fd, "uuuun", (uint64_t) 1, (uint64_t) 1, (uint64_t) 1, player_id);
    msgpack_unpacked m;
    msgpack_unpacked_init(&m);
    cr_assert(e2e_recv(fd, &m, 2000), "no WELCOME");
    cr_assert_eq(e2e_int(&m, 0), 2, "WELCOME expected, got type %lld", (long long) e2e_int(&m, 0));
    msgpack_unpacked_destroy(&m);
    return fd;
}

int e2e_http_get(int port, const char *path, char **body)
{
    char base[64], err[TS_ERR_MAX];
    snprintf(base, sizeof base, "http://127.0.0.1:%d", port);
    ts_http_answer_t a;
    if (body)
        *body = NULL;
    if (ts_http_get(base, path, NULL, 5000, &a, err) < 0)
        return 0;
    if (body)
        *body = a.body;
    else
        ts_http_free(&a);
    return a.status;
}

int e2e_run(const char *cmd, char **out)
{
    FILE *p = popen(cmd, "r");
    cr_assert(p, "cannot run %s", cmd);
    size_t cap = 1 << 16, len = 0, got;
    char *buf = malloc(cap);
    while (buf && (got = fread(buf + len, 1, cap - len - 1, p)) > 0) {
        len += got;
        if (len + 1 == cap)
            buf = realloc(buf, cap *= 2);
    }
    cr_assert(buf);
    buf[len] = '\0';
    int status = pclose(p);
    if (out)
        *out = buf;
    else
        free(buf);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void e2e_sleep_us(int64_t us)
{
    struct timespec ts = { .tv_sec = us / 1000000, .tv_nsec = (us % 1000000) * 1000 };
    nanosleep(&ts, NULL);
}

/* One exchange with user-space delays: up before each client->gate message,
 * down before the client reads SYNC_REPLY's t4, turnaround between t4 and t5. */
static int64_t last_applied, last_applied_after;

int64_t e2e_last_applied_us(void) { return last_applied; }
int64_t e2e_last_applied_after_us(void) { return last_applied_after; }

static int64_t real_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int64_t e2e_exchange(int fd, uint64_t seq, int64_t up, int64_t down, int64_t turnaround)
{
    msgpack_unpacked m;
    msgpack_unpacked_init(&m);
    int64_t t1 = e2e_mono_us();
    e2e_sleep_us(up);
    e2e_send(fd, "uui", (uint64_t) 16, seq, t1);
    cr_assert(e2e_recv(fd, &m, 2000));
    cr_assert_eq(e2e_int(&m, 0), 17, "seq %llu got type %lld code %lld", (unsigned long long) seq, (long long) e2e_int(&m, 0), (long long) (m.data.via.array.size > 2 ? e2e_int(&m, 2) : 0));
    cr_assert_eq(e2e_int(&m, 1), (int64_t) seq);
    cr_assert_eq(e2e_int(&m, 2), t1);
    cr_assert_geq(e2e_int(&m, 4), e2e_int(&m, 3), "t3 >= t2");
    int64_t t3 = e2e_int(&m, 4);
    e2e_sleep_us(down);
    int64_t t4 = e2e_mono_us();
    e2e_sleep_us(turnaround);
    int64_t t5 = e2e_mono_us();
    e2e_sleep_us(up);
    last_applied = (real_us() - t3) - (t5 - t4);
    e2e_send(fd, "uuiiii", (uint64_t) 18, seq, t4, t5, (int64_t) (up + down), (int64_t) 0);
    last_applied_after = (real_us() - t3) - (t5 - t4);
    cr_assert(e2e_recv(fd, &m, 2000));
    cr_assert_eq(e2e_int(&m, 0), 19);
    cr_assert_eq(e2e_int(&m, 1), (int64_t) seq);
    int64_t rtt = e2e_int(&m, 2);
    msgpack_unpacked_destroy(&m);
    return rtt;
}

int64_t e2e_db_value(const char *db, uint64_t player, const char *column)
{
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT %s FROM player_latency WHERE player_id = %llu", column, (unsigned long long) player);
    return e2e_db_query(db, sql);
}

int64_t e2e_db_query(const char *db, const char *sql)
{
    sqlite3 *h;
    cr_assert_eq(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_busy_timeout(h, 2000);
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK, "%s: %s", sql, sqlite3_errmsg(h));
    int64_t v = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : INT64_MIN;
    sqlite3_finalize(st);
    sqlite3_close(h);
    return v;
}

void e2e_expect_error(int fd, int64_t seq, int64_t code)
{
    msgpack_unpacked m;
    msgpack_unpacked_init(&m);
    cr_assert(e2e_recv(fd, &m, 2000), "no ERROR %lld", (long long) code);
    cr_assert_eq(e2e_int(&m, 0), 32);
    cr_assert_eq(e2e_int(&m, 1), seq);
    cr_assert_eq(e2e_int(&m, 2), code);
    msgpack_unpacked_destroy(&m);
}

void e2e_sync_then_ack(int fd, uint64_t seq)
{
    msgpack_unpacked m;
    msgpack_unpacked_init(&m);
    e2e_send(fd, "uui", (uint64_t) 16, seq, (int64_t) 1000);
    cr_assert(e2e_recv(fd, &m, 2000), "no SYNC_REPLY");
    cr_assert_eq(e2e_int(&m, 0), 17, "a SYNC_REPLY whatever the shard's state, not %lld", (long long) e2e_int(&m, 0));
    cr_assert_eq(e2e_int(&m, 1), (int64_t) seq);
    msgpack_unpacked_destroy(&m);
    e2e_send(fd, "uuii", (uint64_t) 18, seq, (int64_t) 2000, (int64_t) 2001);
}

void e2e_sync_unmeasured(int fd, uint64_t seq)
{
    e2e_sync_then_ack(fd, seq);
    e2e_expect_error(fd, (int64_t) seq, 7);
}


long long e2e_metric(int port, const char *series)
{
    char *body;
    cr_assert_eq(e2e_http_get(port, "/metrics", &body), 200);
    char key[200];
    snprintf(key, sizeof key, "\n%s ", series);
    const char *at = strstr(body, key);
    long long v = at ? atoll(at + strlen(key)) : -1;
    free(body);
    return v;
}

bool e2e_file_contains(const char *path, const char *needle)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    char line[1024];
    bool found = false;
    while (!found && fgets(line, sizeof line, f))
        found = strstr(line, needle) != NULL;
    fclose(f);
    return found;
}

/* ---- WebSocket ------------------------------------------------------------ */

int e2e_ws_port(void)
{
    return base_port() + 5;   /* the one port of the ten plan_cluster leaves */
}

const char *e2e_ws_listen(void)
{
    static char addr[32];
    snprintf(addr, sizeof addr, "127.0.0.1:%d", e2e_ws_port());
    return addr;
}

int e2e_ws_open(int port, const char *origin, char *status, size_t cap)
{
    int fd = e2e_connect(port);
    char req[512];
    int n = snprintf(req, sizeof req,
                     "GET / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                     "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n%s%s%s\r\n",
                     port, origin ? "Origin: " : "", origin ? origin : "", origin ? "\r\n" : "");
    e2e_send_raw(fd, req, (size_t) n);
    char resp[1024];
    size_t have = 0;
    int64_t deadline = e2e_mono_us() + 2000000;
    while (have < sizeof resp - 1) {   /* byte by byte: frames may follow the response */
        cr_assert(read_full(fd, (uint8_t *) resp + have, 1, deadline), "no handshake response");
        have++;
        if (have >= 4 && memcmp(resp + have - 4, "\r\n\r\n", 4) == 0)
            break;
    }
    resp[have] = '\0';
    snprintf(status, cap, "%s", resp);
    return fd;
}

void e2e_ws_frame(int fd, bool fin, int opcode, const void *payload, size_t len, bool masked)
{
    uint8_t hdr[14];
    size_t n = 0;
    static const uint8_t mask[4] = { 0x9d, 0x02, 0x5e, 0xc4 };
    hdr[n++] = (uint8_t) ((fin ? 0x80 : 0) | opcode);
    uint8_t m = masked ? 0x80 : 0;
    if (len < 126) {
        hdr[n++] = (uint8_t) (m | len);
    } else if (len <= 0xffff) {
        hdr[n++] = m | 126;
        hdr[n++] = (uint8_t) (len >> 8);
        hdr[n++] = (uint8_t) len;
    } else {
        hdr[n++] = m | 127;
        for (int i = 7; i >= 0; i--)
            hdr[n++] = (uint8_t) ((uint64_t) len >> (8 * i));
    }
    if (masked) {
        memcpy(hdr + n, mask, 4);
        n += 4;
    }
    uint8_t *body = malloc(n + len + 1);
    cr_assert_not_null(body);
    memcpy(body, hdr, n);
    for (size_t i = 0; i < len; i++)
        body[n + i] = (uint8_t) (((const uint8_t *) payload)[i] ^ (masked ? mask[i % 4] : 0));
    e2e_send_raw(fd, body, n + len);
    free(body);
}

void e2e_ws_send(int fd, const char *fmt, ...)
{
    msgpack_sbuffer sb;
    va_list ap;
    va_start(ap, fmt);
    pack_fmt(&sb, fmt, ap);
    va_end(ap);
    e2e_ws_frame(fd, true, 2, sb.data, sb.size, true);
    msgpack_sbuffer_destroy(&sb);
}

/* The next server frame: its opcode, and its payload in body (cap bytes). */
static int ws_read_frame(int fd, uint8_t *body, size_t cap, size_t *len, int64_t deadline)
{
    uint8_t hdr[2];
    if (!read_full(fd, hdr, 2, deadline))
        return -1;
    cr_assert_eq(hdr[1] & 0x80, 0, "a server frame is not masked");
    size_t n = hdr[1] & 0x7f;
    if (n == 126) {
        uint8_t ext[2];
        cr_assert(read_full(fd, ext, 2, deadline));
        n = (size_t) ext[0] << 8 | ext[1];
    }
    cr_assert(n < 126 || (hdr[1] & 0x7f) == 126, "no 64-bit lengths from the gate");
    cr_assert_leq(n, cap);
    if (n && !read_full(fd, body, n, deadline))
        return -1;
    *len = n;
    return hdr[0] & 0x0f;
}

bool e2e_ws_recv(int fd, msgpack_unpacked *out, int timeout_ms)
{
    int64_t deadline = e2e_mono_us() + timeout_ms * 1000LL;
    static uint8_t body[4096];
    size_t n;
    int op = ws_read_frame(fd, body, sizeof body, &n, deadline);
    if (op != 2)
        return false;
    size_t off = 0;
    cr_assert_eq(msgpack_unpack_next(out, (const char *) body, n, &off), MSGPACK_UNPACK_SUCCESS);
    cr_assert_eq(out->data.type, MSGPACK_OBJECT_ARRAY);
    return true;
}

int e2e_ws_close_code(int fd, int timeout_ms)
{
    int64_t deadline = e2e_mono_us() + timeout_ms * 1000LL;
    uint8_t body[4096];
    size_t n;
    for (;;) {
        int op = ws_read_frame(fd, body, sizeof body, &n, deadline);
        if (op < 0)
            return -1;
        if (op == 8)
            return n >= 2 ? body[0] << 8 | body[1] : 1005;
    }
}
