/* bindings/windows/test_windows.c - libticksync built for Windows, run under
 * wine64 against the real gate and scene on the Linux host's loopback
 * (bindings/stack.sh): the socket client on Winsock logs in, syncs, shows the
 * server's time within 2 ms of the host's real clock (read between two reads
 * of it, the tightest of five tries), gets the server's round trip from
 * SYNC_RESULT and never sees time go back; a gate with a secret refuses it
 * UNAUTHORIZED. Exits 0 when every check holds.
 *
 *   test_windows.exe HOST:PORT SECURE_HOST:PORT */
#include <stdio.h>
#include <stdlib.h>
#include <windows.h>

#include "ticksync.h"

static int failures;

#define CHECK(cond, ...)                                                          \
    do {                                                                          \
        if (!(cond)) {                                                            \
            failures++;                                                           \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                           \
            printf(__VA_ARGS__);                                                  \
            printf("\n");                                                         \
        }                                                                         \
    } while (0)

/* The host's real clock: Unix microseconds. */
static int64_t real_us(void)
{
    FILETIME ft;
    GetSystemTimePreciseAsFileTime(&ft);
    int64_t t = (int64_t) ((uint64_t) ft.dwHighDateTime << 32 | ft.dwLowDateTime);
    return (t - 116444736000000000LL) / 10;   /* 100 ns since 1601 */
}

static void synced_client(const char *gate)
{
    ticksync_client_options_t o = { .server = gate, .player_id = 5101, .udp = true };
    char err[TICKSYNC_ERR_MAX];
    ticksync_client_t *c = ticksync_client_new(&o, err);
    CHECK(c != NULL, "ticksync_client_new: %s", err);
    if (!c)
        return;
    ticksync_t *clock = ticksync_client_clock(c);
    int64_t rtt = -1, end = ticksync_local_us() + 10000000;
    while (ticksync_local_us() < end && (!ticksync_synced(clock) || rtt < 0)) {
        CHECK(ticksync_client_run(c, 20) == 0, "run");
        ticksync_session_server_rtt(ticksync_client_session(c), &rtt, NULL, NULL);
    }
    CHECK(ticksync_synced(clock), "synced within 10 s");
    CHECK(rtt > 0 && rtt < 100000, "the server's rtt from SYNC_RESULT: %lld us", (long long) rtt);
    int64_t best_width = INT64_MAX, off = 0;
    for (int i = 0; i < 5; i++) {
        int64_t before = real_us(), now = ticksync_now(clock, ticksync_local_us()), after = real_us();
        if (after - before < best_width) {
            best_width = after - before;
            off = now < before ? before - now : now > after ? now - after : 0;
        }
    }
    CHECK(off <= 2000, "server time %lld us outside the host's clock (bracket %lld us)", (long long) off,
          (long long) best_width);
    printf("ok   synced over Winsock: %lld us outside the host's clock, bound %lld us, server rtt %lld us\n",
           (long long) off, (long long) ticksync_error_bound(clock, ticksync_local_us()), (long long) rtt);
    int64_t last = 0, backs = 0;
    end = ticksync_local_us() + 2000000;
    while (ticksync_local_us() < end) {
        ticksync_client_run(c, 1);
        int64_t now = ticksync_now(clock, ticksync_local_us());
        backs += now < last;
        last = now;
    }
    CHECK(backs == 0, "time went back %lld times", (long long) backs);
    printf("ok   never backwards over 2 s of exchanges\n");
    ticksync_client_destroy(&c);
    CHECK(c == NULL, "destroy clears the pointer");
}

static void refused_client(const char *gate)
{
    ticksync_client_options_t o = { .server = gate, .player_id = 5102 };
    char err[TICKSYNC_ERR_MAX];
    ticksync_client_t *c = ticksync_client_new(&o, err);
    CHECK(c != NULL, "ticksync_client_new: %s", err);
    if (!c)
        return;
    int rc = 0;
    for (int i = 0; i < 100 && rc == 0; i++)
        rc = ticksync_client_run(c, 20);
    CHECK(rc == -1, "refused");
    CHECK(ticksync_session_last_error(ticksync_client_session(c)) == 4, "UNAUTHORIZED, got %d",
          ticksync_session_last_error(ticksync_client_session(c)));
    printf("ok   a gate with a secret refuses a client without a token\n");
    ticksync_client_destroy(&c);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_windows HOST:PORT SECURE_HOST:PORT\n");
        return 2;
    }
    synced_client(argv[1]);
    refused_client(argv[2]);
    printf("%s\n", failures ? "FAILED" : "passed");
    return failures ? 1 : 0;
}
