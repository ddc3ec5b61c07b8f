/* tests/test_signals.c - how a process stops: SIGTERM and SIGINT, blocked
 * in every thread, arrive on the signalfd instead of killing the process,
 * threads started afterwards inherit the block, and SIGPIPE is ignored. */
#include <criterion/criterion.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "signals.h"

static int read_signal(int fd, int ms)
{
    struct pollfd p = { .fd = fd, .events = POLLIN };
    if (poll(&p, 1, ms) != 1)
        return 0;
    struct signalfd_siginfo si;
    return read(fd, &si, sizeof si) == sizeof si ? (int) si.ssi_signo : 0;
}

Test(signals, sigterm_and_sigint_arrive_on_the_fd)
{
    ts_signals_block();
    int fd = ts_signals_fd();
    cr_assert_geq(fd, 0);
    struct signalfd_siginfo si;
    cr_assert_eq(read(fd, &si, sizeof si), -1, "non-blocking: nothing yet");
    cr_assert_eq(errno, EAGAIN);
    kill(getpid(), SIGTERM);
    cr_assert_eq(read_signal(fd, 1000), SIGTERM, "the process lives and reads it");
    kill(getpid(), SIGINT);
    cr_assert_eq(read_signal(fd, 1000), SIGINT);
    close(fd);
}

static void *report_mask(void *arg)
{
    (void) arg;
    sigset_t now;
    pthread_sigmask(SIG_BLOCK, NULL, &now);
    return (void *) (intptr_t) sigismember(&now, SIGTERM);
}

Test(signals, threads_started_later_inherit_the_block)
{
    ts_signals_block();
    int fd = ts_signals_fd();
    pthread_t t;
    void *blocked;
    pthread_create(&t, NULL, report_mask, NULL);
    pthread_join(t, &blocked);
    cr_assert_eq((intptr_t) blocked, 1);
    kill(getpid(), SIGTERM);
    cr_assert_eq(read_signal(fd, 1000), SIGTERM);
    close(fd);
}

Test(signals, a_closed_peer_is_an_error_not_a_sigpipe)
{
    ts_signals_block();
    int p[2];
    cr_assert_eq(pipe(p), 0);
    close(p[0]);
    cr_assert_eq(write(p[1], "x", 1), -1, "the process survives the write");
    cr_assert_eq(errno, EPIPE);
    close(p[1]);
}
