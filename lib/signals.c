/* lib/signals.c - see signals.h. */
#include "signals.h"

#include <pthread.h>
#include <signal.h>
#include <sys/signalfd.h>

static void stop_set(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGINT);
}

void ts_signals_block(void)
{
    sigset_t set;
    stop_set(&set);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);
}

int ts_signals_fd(void)
{
    sigset_t set;
    stop_set(&set);
    return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}
