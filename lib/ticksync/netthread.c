/* lib/ticksync/netthread.c - see netthread.h. One mutex guards the ring and
 * the watched sockets; it is held only to copy a few words or one chunk,
 * never across poll or a read. Threads and the mutex are pthreads on POSIX
 * and the Win32 API on Windows (mingw-w64 needs no winpthread DLL then). */
#include "netthread.h"

#include <stdlib.h>
#include <string.h>

#include "ticksync.h"

#ifdef _WIN32
typedef CRITICAL_SECTION ts_mutex_t;
typedef HANDLE           ts_thread_t;
#define ts_mutex_init(m)    InitializeCriticalSection(m)
#define ts_mutex_lock(m)    EnterCriticalSection(m)
#define ts_mutex_unlock(m)  LeaveCriticalSection(m)
#define ts_mutex_fini(m)    DeleteCriticalSection(m)
#else
#include <pthread.h>
typedef pthread_mutex_t ts_mutex_t;
typedef pthread_t       ts_thread_t;
#define ts_mutex_init(m)    pthread_mutex_init(m, NULL)
#define ts_mutex_lock(m)    pthread_mutex_lock(m)
#define ts_mutex_unlock(m)  pthread_mutex_unlock(m)
#define ts_mutex_fini(m)    pthread_mutex_destroy(m)
#endif

#define RING      32      /* queued reads: far more than one exchange's few messages */
#define POLL_MS   10      /* how soon the thread sees new sockets to watch, or the order to stop */
#define RETIRED   8       /* sockets handed back and not yet closed */

struct ts_netthread_t {
    ts_thread_t    thread;
    ts_mutex_t     lock;
    bool           stop;
    ts_sock_t      tcp, udp;           /* watched now */
    unsigned       gen;                /* bumped by each watch: reads of older sockets are dropped */
    ts_sock_t      retired[RETIRED];   /* for the thread to close */
    size_t         nretired;
    ts_net_chunk_t ring[RING];
    unsigned       ring_gen[RING];
    size_t         head, count;
};

static void close_retired(ts_netthread_t *self)
{
    for (size_t i = 0; i < self->nretired; i++)
        ts_sock_close(self->retired[i]);
    self->nretired = 0;
}

/* Queues one read of the sockets watched now, or drops one of sockets
 * let go of; false only when the ring is full, for the caller to wait. */
static bool push(ts_netthread_t *self, unsigned gen, ts_net_kind_t kind, int64_t at, const uint8_t *data, size_t len)
{
    ts_mutex_lock(&self->lock);
    bool room = gen != self->gen || self->count < RING;
    if (room && gen == self->gen) {
        size_t i = (self->head + self->count) % RING;
        self->ring[i].kind = kind;
        self->ring[i].at = at;
        self->ring[i].len = len;
        memcpy(self->ring[i].data, data, len);
        self->ring_gen[i] = gen;
        self->count++;
    }
    ts_mutex_unlock(&self->lock);
    return room;
}

/* Reads what the socket has, a chunk at a time, while the ring has room.
 * Returns false when a TCP stream has ended. */
static bool drain(ts_netthread_t *self, ts_sock_t s, ts_net_kind_t kind, unsigned gen, int64_t ready_at)
{
    uint8_t buf[TS_NET_CHUNK];
    for (;;) {
        int64_t at;
        long n = ts_sock_recv_at(s, buf, sizeof buf, ready_at, &at);
        if (n < 0) {
            int e = ts_sock_error();
            if (ts_sock_interrupted(e))
                continue;
            if (ts_sock_would_block(e) || kind == TS_NET_UDP)   /* a UDP error (ICMP) ends nothing */
                return true;
        }
        if (n <= 0) {
            while (!push(self, gen, TS_NET_CLOSED, ready_at, buf, 0))
                ts_sleep_us(1000);
            return false;
        }
        while (!push(self, gen, kind, at, buf, (size_t) n))
            ts_sleep_us(1000);   /* the game is not taking: the kernel holds the rest */
        ready_at = TS_SOCK_STAMP_NOW;   /* what the next read returns may have come after the poll */
    }
}

static void serve(ts_netthread_t *self)
{
    unsigned ended_gen = (unsigned) -1;   /* the generation whose TCP stream has ended */
    for (;;) {
        ts_mutex_lock(&self->lock);
        close_retired(self);
        bool stop = self->stop;
        ts_sock_t tcp = self->tcp, udp = self->udp;
        unsigned gen = self->gen;
        ts_mutex_unlock(&self->lock);
        if (stop)
            return;
        if (gen == ended_gen)
            tcp = TS_SOCK_NONE;
        ts_pollfd_t p[2];
        size_t np = 0;
        if (tcp != TS_SOCK_NONE)
            p[np++] = (ts_pollfd_t) { .fd = tcp, .events = POLLIN };
        if (udp != TS_SOCK_NONE)
            p[np++] = (ts_pollfd_t) { .fd = udp, .events = POLLIN };
        if (np == 0) {
            ts_sleep_us(POLL_MS * 1000);
            continue;
        }
        if (ts_poll(p, np, POLL_MS) <= 0)
            continue;
        int64_t ready_at = ticksync_local_us();   /* stamped at once: before anything else */
        for (size_t i = 0; i < np; i++) {
            if (!(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            bool is_tcp = p[i].fd == tcp;
            if (!drain(self, p[i].fd, is_tcp ? TS_NET_TCP : TS_NET_UDP, gen, ready_at) && is_tcp)
                ended_gen = gen;
        }
    }
}

#ifdef _WIN32
static DWORD WINAPI run_thread(LPVOID arg)
{
    serve(arg);
    return 0;
}
#else
static void *run_thread(void *arg)
{
    serve(arg);
    return NULL;
}
#endif

ts_netthread_t *ts_netthread_new(void)
{
    ts_netthread_t *self = calloc(1, sizeof *self);
    if (!self)
        return NULL;
    self->tcp = self->udp = TS_SOCK_NONE;
    ts_mutex_init(&self->lock);
#ifdef _WIN32
    self->thread = CreateThread(NULL, 0, run_thread, self, 0, NULL);
    bool started = self->thread != NULL;
#else
    bool started = pthread_create(&self->thread, NULL, run_thread, self) == 0;
#endif
    if (!started) {
        ts_mutex_fini(&self->lock);
        free(self);
        return NULL;
    }
    return self;
}

void ts_netthread_destroy(ts_netthread_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    ts_netthread_t *self = *self_p;
    ts_mutex_lock(&self->lock);
    self->stop = true;
    ts_mutex_unlock(&self->lock);
#ifdef _WIN32
    WaitForSingleObject(self->thread, INFINITE);
    CloseHandle(self->thread);
#else
    pthread_join(self->thread, NULL);
#endif
    close_retired(self);
    if (self->tcp != TS_SOCK_NONE)
        ts_sock_close(self->tcp);
    if (self->udp != TS_SOCK_NONE)
        ts_sock_close(self->udp);
    ts_mutex_fini(&self->lock);
    free(self);
    *self_p = NULL;
}

void ts_netthread_watch(ts_netthread_t *self, ts_sock_t tcp, ts_sock_t udp)
{
    ts_mutex_lock(&self->lock);
    ts_sock_t old[2] = { self->tcp, self->udp };
    for (size_t i = 0; i < 2; i++) {
        if (old[i] == TS_SOCK_NONE)
            continue;
        if (self->nretired == RETIRED) {   /* the thread has not come round in RETIRED reconnects (backoff is
                                              100 ms, its poll 10 ms): it is stuck, not reading the oldest */
            ts_sock_close(self->retired[0]);
            memmove(self->retired, self->retired + 1, (RETIRED - 1) * sizeof self->retired[0]);
            self->nretired--;
        }
        self->retired[self->nretired++] = old[i];
    }
    self->tcp = tcp;
    self->udp = udp;
    self->gen++;
    ts_mutex_unlock(&self->lock);
}

bool ts_netthread_take(ts_netthread_t *self, ts_net_chunk_t *out)
{
    bool got = false;
    ts_mutex_lock(&self->lock);
    while (!got && self->count > 0) {
        size_t i = self->head;
        got = self->ring_gen[i] == self->gen;
        if (got)
            *out = self->ring[i];
        self->head = (self->head + 1) % RING;
        self->count--;
    }
    ts_mutex_unlock(&self->lock);
    return got;
}
