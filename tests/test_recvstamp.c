/* tests/test_recvstamp.c - reads stamped with the kernel's arrival time:
 * a datagram or TCP bytes read late still carry when they arrived, a
 * socket not asked to stamp gives the time of the read, and an arrival
 * turns into the monotonic clock unless the real clock stepped. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "recvstamp.h"

#define LATE_US 30000

static void sleep_us(int64_t us)
{
    struct timespec ts = { .tv_sec = us / 1000000, .tv_nsec = (us % 1000000) * 1000 };
    nanosleep(&ts, NULL);
}

/* A loopback pair of the given type: *rx bound, *tx connected to it. */
static void pair(int type, int *rx, int *tx)
{
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof a;
    int server = socket(AF_INET, type, 0);
    cr_assert_eq(bind(server, (struct sockaddr *) &a, len), 0);
    cr_assert_eq(getsockname(server, (struct sockaddr *) &a, &len), 0);
    *tx = socket(AF_INET, type, 0);
    if (type == SOCK_STREAM)
        cr_assert_eq(listen(server, 1), 0);
    cr_assert_eq(connect(*tx, (struct sockaddr *) &a, len), 0);
    *rx = type == SOCK_STREAM ? accept(server, NULL, NULL) : server;
    if (type == SOCK_STREAM)
        close(server);
}

static void read_late_keeps_the_arrival(int type)
{
    int rx, tx;
    pair(type, &rx, &tx);
    ts_stamp_arrivals(rx);
    sleep_us(20000);   /* the kernel turns stamping on for the host a moment after the first ask */
    int64_t sent = ts_clock_real_us();
    cr_assert_eq(send(tx, "hello", 5, 0), 5);
    sleep_us(LATE_US);
    uint8_t buf[16];
    int64_t arrived;
    struct sockaddr_storage from;
    socklen_t from_len = sizeof from;
    cr_assert_eq(ts_recv_stamped(rx, buf, sizeof buf, &from, &from_len, &arrived), 5);
    int64_t read_at = ts_clock_real_us();
    cr_assert_geq(arrived, sent - 1000, "arrived %lld us after the send", (long long) (arrived - sent));
    cr_assert_lt(arrived, read_at - LATE_US / 2, "the stamp is the arrival, not the read");
    close(rx);
    close(tx);
}

Test(recvstamp, a_datagram_read_late_keeps_its_arrival_time) { read_late_keeps_the_arrival(SOCK_DGRAM); }

Test(recvstamp, tcp_bytes_read_late_keep_their_arrival_time) { read_late_keeps_the_arrival(SOCK_STREAM); }

Test(recvstamp, an_unstamped_socket_gives_the_time_of_the_read)
{
    int rx, tx;
    pair(SOCK_DGRAM, &rx, &tx);
    cr_assert_eq(send(tx, "x", 1, 0), 1);
    sleep_us(LATE_US);
    uint8_t buf[4];
    int64_t arrived, before = ts_clock_real_us();
    cr_assert_eq(ts_recv_stamped(rx, buf, sizeof buf, NULL, NULL, &arrived), 1);
    cr_assert_geq(arrived, before);
    close(rx);
    close(tx);
}

Test(recvstamp, nothing_to_read_is_eagain)
{
    int rx, tx;
    pair(SOCK_DGRAM, &rx, &tx);
    uint8_t buf[4];
    int64_t arrived;
    cr_assert_eq(ts_recv_stamped(rx, buf, sizeof buf, NULL, NULL, &arrived), -1);
    cr_assert(errno == EAGAIN || errno == EWOULDBLOCK);
    cr_assert_eq(arrived, 0, "no stamp, and no clock read, when nothing was read");
    close(rx);
    close(tx);
}

Test(recvstamp, an_arrival_on_both_clocks_unless_the_real_clock_stepped)
{
    int64_t real, mono, real_then, mono_then;
    real = ts_clock_real_us();
    mono = ts_clock_mono_us();
    ts_arrival_clocks(real - 5000, &real_then, &mono_then);
    cr_assert(mono_then > mono - 6000 && mono_then < mono - 4000, "5 ms ago: %lld", (long long) (mono_then - mono));
    cr_assert(real_then > real - 6000 && real_then < real - 4000, "5 ms ago: %lld", (long long) (real_then - real));
    ts_arrival_clocks(ts_clock_real_us() + 5000, &real_then, &mono_then);
    cr_assert_geq(mono_then, mono, "from the future: now");
    ts_arrival_clocks(ts_clock_real_us() - 5000000, &real_then, &mono_then);
    cr_assert_geq(mono_then, mono, "older than the bound (%d us): now", TS_ARRIVAL_MAX_US);
    cr_assert_geq(real_then, real, "older than the bound: now");
}
