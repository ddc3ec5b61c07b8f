/* tests/test_epollus.c - lib/epollus: a wait in microseconds ends at its
 * timeout, not a millisecond step later, and at once for a ready fd. */
#include <criterion/criterion.h>
#include <unistd.h>

#include "clock.h"
#include "epollus.h"

static int ep, pipefd[2];

static void setup(void)
{
    ep = epoll_create1(0);
    cr_assert_geq(ep, 0);
    cr_assert_eq(pipe(pipefd), 0);
    struct epoll_event ev = { .events = EPOLLIN, .data.u32 = 7 };
    cr_assert_eq(epoll_ctl(ep, EPOLL_CTL_ADD, pipefd[0], &ev), 0);
}

static void teardown(void)
{
    close(pipefd[0]);
    close(pipefd[1]);
    close(ep);
}

Test(epollus, a_wait_lasts_its_microseconds, .init = setup, .fini = teardown)
{
    struct epoll_event out[4];
    int64_t shortest = INT64_MAX;
    for (int i = 0; i < 5; i++) {   /* the least of a few: a busy machine only adds */
        int64_t t0 = ts_clock_mono_us();
        cr_assert_eq(ts_epoll_wait_us(ep, out, 4, 300), 0);
        int64_t took = ts_clock_mono_us() - t0;
        cr_assert_geq(took, 300);
        shortest = took < shortest ? took : shortest;
    }
    cr_assert_lt(shortest, 100000, "not much past its timeout: %lld us", (long long) shortest);
}

Test(epollus, a_ready_fd_ends_the_wait_at_once, .init = setup, .fini = teardown)
{
    struct epoll_event out[4];
    cr_assert_eq(write(pipefd[1], "x", 1), 1);
    int64_t t0 = ts_clock_mono_us();
    cr_assert_eq(ts_epoll_wait_us(ep, out, 4, -1), 1, "no timeout: waits for the fd, which is ready");
    cr_assert_lt(ts_clock_mono_us() - t0, 1000000);
    cr_assert_eq(out[0].data.u32, 7);
    cr_assert_eq(ts_epoll_wait_us(ep, out, 4, 0), 1, "a zero wait still reports it");
}
