/* tests/test_e2e_hostile.c - hostile clients against the real gate and
 * scene: random garbage on many connections, half frames then a
 * disconnect, a byte a second, thousands of connections opened and
 * dropped, a client hiding its turnaround, ACKs with an unknown seq or a
 * negative turnaround. Each gets PROTOCOL's answer, the processes stay up,
 * and a well-behaved client alongside sees no error and no change in its
 * latency. */
#include <criterion/criterion.h>
#include <math.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "e2e.h"
#include "prng.h"

static e2e_stack_t stack;
static int good;
static uint64_t good_seq;

/* The well-behaved client: n (at most 8) exchanges of a 10 ms round trip;
 * the median of how far each server-measured rtt is off the round trip it
 * really had (e2e_last_applied_us), which this machine may stretch. */
static double good_exchanges(int n)
{
    double off[8];
    cr_assert(n >= 1 && n <= 8);
    for (int i = 0; i < n; i++) {
        int64_t rtt = e2e_exchange(good, ++good_seq, 5000, 5000, 0);
        cr_assert_gt(rtt, 0);
        off[i] = fabs((double) (rtt - e2e_last_applied_us()));
        for (int j = i; j > 0 && off[j - 1] > off[j]; j--) {   /* kept in order */
            double t = off[j];
            off[j] = off[j - 1];
            off[j - 1] = t;
        }
    }
    return off[n / 2];
}

static void start(void)
{
    good = -1;
    e2e_start(&stack, true, NULL);
    good_seq = 0;
    good = e2e_login(stack.port[0], 1);
    good_exchanges(3);
}

/* The end of every test: the good client is untouched, and both processes
 * are still up and exit cleanly. In the test's body, not its fini, where
 * Criterion would not count a failed check. */
static void untouched(void)
{
    double off = good_exchanges(5);
    /* plain builds stay within a millisecond; the margin is for sanitizer builds on a busy box, and
     * the median for one exchange a stalled box stretched (6.3 ms of 3 exchanges' mean, a plain
     * build in a fresh-clone CI run at 937c173, 2026-11-28): a session broken is off in all of them */
    cr_assert_lt(off, 5000, "the good client's rtt is %.0f us off the round trip it had", off);
    cr_assert(e2e_can_connect(stack.port[0]));
    cr_assert_eq(e2e_http_get(stack.admin_port[0], "/healthz", NULL), 200);
    close(good);
    good = -1;
    cr_assert_eq(e2e_term(stack.gate[0]), 0, "the gate exits cleanly");
    stack.gate[0] = 0;
    cr_assert_eq(e2e_term(stack.scene[0]), 0, "the scene exits cleanly");
    stack.scene[0] = 0;
}

static void stop(void)
{
    if (good >= 0)
        close(good);
    e2e_stop(&stack);
}

Test(e2e_hostile, random_garbage_on_many_connections, .init = start, .fini = stop, .timeout = 60)
{
    uint64_t rng = 7;
    int fds[200];
    for (int i = 0; i < 200; i++) {
        fds[i] = e2e_connect(stack.port[0]);
        uint8_t junk[512];
        size_t n = 1 + ts_prng_next(&rng) % sizeof junk;
        for (size_t k = 0; k < n; k++)
            junk[k] = (uint8_t) ts_prng_next(&rng);
        send(fds[i], junk, n, MSG_NOSIGNAL);
    }
    /* every one gets an answer it can read or a close; none stays forever */
    int closed = 0;
    for (int i = 0; i < 200; i++) {
        closed += e2e_closed(fds[i], 3000);
        close(fds[i]);
    }
    cr_assert_gt(closed, 150, "garbage is BAD_FRAME, TOO_LARGE, NOT_AUTHENTICATED...: closed (%d of 200)", closed);
    untouched();
}

Test(e2e_hostile, half_frames_then_a_disconnect, .init = start, .fini = stop, .timeout = 60)
{
    for (int i = 0; i < 100; i++) {
        int fd = e2e_login(stack.port[0], (uint64_t) (1000 + i));
        const uint8_t half[] = { 0, 0, 0, 9, 0x93, 0x10 };   /* 9 promised, 2 given */
        e2e_send_raw(fd, half, sizeof half);
        close(fd);
    }
    usleep(300000);
    cr_assert_eq(e2e_metric(stack.metrics_port[0], "ticksync_gate_sessions"), 1, "only the good client is left");
    untouched();
}

Test(e2e_hostile, a_byte_a_second, .init = start, .fini = stop, .timeout = 60)
{
    int slow = e2e_connect(stack.port[0]);
    const uint8_t hello[] = { 0, 0, 0, 6, 0x95, 0x01, 0x00, 0x01, 0x07, 0xc0 };
    for (size_t i = 0; i < 5; i++) {   /* the frame crawls in; the gate holds only what it got */
        e2e_send_raw(slow, hello + i, 1);
        good_exchanges(1);
        usleep(1000000);
    }
    e2e_send_raw(slow, hello + 5, sizeof hello - 5);
    msgpack_unpacked m;
    msgpack_unpacked_init(&m);
    cr_assert(e2e_recv(slow, &m, 2000), "the slow HELLO is still answered");
    cr_assert_eq(e2e_int(&m, 0), 2);
    msgpack_unpacked_destroy(&m);
    close(slow);
    untouched();
}

Test(e2e_hostile, thousands_of_connections_opened_and_dropped, .init = start, .fini = stop, .timeout = 120)
{
    for (int round = 0; round < 10; round++) {
        int fds[1000];
        for (int i = 0; i < 1000; i++)
            fds[i] = e2e_connect(stack.port[0]);
        for (int i = 0; i < 1000; i++)
            close(fds[i]);
        good_exchanges(1);
    }
    usleep(500000);
    cr_assert_eq(e2e_metric(stack.metrics_port[0], "ticksync_gate_connections"), 1, "nothing leaks");
    cr_assert_geq(e2e_metric(stack.metrics_port[0], "ticksync_gate_connections_accepted_total"), 10001);
    untouched();
}

/* An ACK with chosen t4/t5: the SYNC_RESULT's rtt. */
static int64_t ack_with(int fd, uint64_t seq, int64_t turnaround, int64_t real_wait)
{
    msgpack_unpacked m;
    msgpack_unpacked_init(&m);
    e2e_send(fd, "uui", (uint64_t) 16, seq, e2e_mono_us());
    cr_assert(e2e_recv(fd, &m, 2000));
    cr_assert_eq(e2e_int(&m, 0), 17);
    e2e_sleep_us(real_wait);
    int64_t t4 = e2e_mono_us();
    e2e_send(fd, "uuii", (uint64_t) 18, seq, t4, t4 + turnaround);
    cr_assert(e2e_recv(fd, &m, 2000));
    cr_assert_eq(e2e_int(&m, 0), 19);
    int64_t rtt = e2e_int(&m, 2);
    msgpack_unpacked_destroy(&m);
    return rtt;
}

Test(e2e_hostile, turnaround_tricks_and_unknown_acks, .init = start, .fini = stop, .timeout = 60)
{
    int fd = e2e_login(stack.port[0], 77);
    /* claiming a turnaround longer than the whole round trip: invalid, -1 */
    cr_assert_eq(ack_with(fd, 1, 10000000, 1000), -1);
    /* a negative turnaround: invalid */
    cr_assert_eq(ack_with(fd, 2, -5000, 1000), -1);
    /* hiding 20 ms of a 30 ms wait as turnaround shrinks the sample to what is
     * left, never below zero, and never below the real network path */
    int64_t rtt = ack_with(fd, 3, 20000, 30000);
    cr_assert_geq(rtt, 0);
    cr_assert_leq(rtt, 30000);
    /* an ACK for a seq never sent is ignored: no answer */
    e2e_send(fd, "uuii", (uint64_t) 18, (uint64_t) 999, (int64_t) 1, (int64_t) 2);
    struct pollfd p = { .fd = fd, .events = POLLIN };
    cr_assert_eq(poll(&p, 1, 300), 0, "an ACK matching no exchange is ignored");
    e2e_sleep_us(300000);
    cr_assert_eq(e2e_db_value(stack.db[0], 77, "invalid"), 2);
    cr_assert_eq(e2e_db_value(stack.db[0], 77, "samples"), 1);
    close(fd);
    untouched();
}
