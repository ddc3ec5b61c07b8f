/* lib/epollus.c - see epollus.h. */
#include "epollus.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <time.h>

static atomic_bool no_pwait2;   /* learnt once: epoll_pwait2 is ENOSYS here */

int ts_epoll_wait_us(int ep, struct epoll_event *events, int max, int64_t wait_us)
{
    if (!atomic_load_explicit(&no_pwait2, memory_order_relaxed)) {
        struct timespec ts = { .tv_sec = wait_us / 1000000, .tv_nsec = (long) (wait_us % 1000000) * 1000 };
        int n = epoll_pwait2(ep, events, max, wait_us < 0 ? NULL : &ts, NULL);
        if (n >= 0 || errno != ENOSYS)
            return n;
        atomic_store(&no_pwait2, true);
    }
    int ms = wait_us < 0 ? -1 : wait_us > (int64_t) 1000 * 1000000 ? 1000000000 : (int) ((wait_us + 999) / 1000);
    return epoll_wait(ep, events, max, ms);
}
