/* lib/epollus.h - epoll_wait with its timeout in microseconds, for loops
 * whose deadlines are finer than a millisecond (the gate's batch linger,
 * the load generator's paced sends). */
#ifndef TS_LIB_EPOLLUS_H
#define TS_LIB_EPOLLUS_H

#include <stdint.h>
#include <sys/epoll.h>

/* As epoll_wait, waiting at most wait_us (< 0: for ever). Uses
 * epoll_pwait2 (Linux 5.11); where the kernel or valgrind does not know it
 * (ENOSYS), epoll_wait with the wait rounded up to whole milliseconds. */
int ts_epoll_wait_us(int ep, struct epoll_event *events, int max, int64_t wait_us);

#endif
