/* lib/recvstamp.c - see recvstamp.h. */
#include "recvstamp.h"

#include <string.h>
#include <time.h>

#include "clock.h"

void ts_stamp_arrivals(int fd)
{
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one);
}

ssize_t ts_recv_stamped(int fd, void *buf, size_t cap, struct sockaddr_storage *from, socklen_t *from_len,
                        int64_t *arrived_us)
{
    struct iovec iov = { .iov_base = buf, .iov_len = cap };
    union {
        char           space[CMSG_SPACE(sizeof(struct timespec))];
        struct cmsghdr align;
    } control;
    struct msghdr msg = { .msg_name = from, .msg_namelen = from_len ? *from_len : 0, .msg_iov = &iov,
                          .msg_iovlen = 1, .msg_control = control.space, .msg_controllen = sizeof control.space };
    ssize_t n = recvmsg(fd, &msg, MSG_DONTWAIT);
    *arrived_us = 0;
    if (n >= 0) {
        if (from_len)
            *from_len = msg.msg_namelen;
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
                struct timespec ts;
                memcpy(&ts, CMSG_DATA(c), sizeof ts);
                *arrived_us = (int64_t) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
            }
        }
    }
    if (n >= 0 && *arrived_us == 0)
        *arrived_us = ts_clock_real_us();
    return n;
}

void ts_arrival_clocks(int64_t arrived_us, int64_t *real_us, int64_t *mono_us)
{
    int64_t real = ts_clock_real_us(), late = real - arrived_us;
    if (late < 0 || late > TS_ARRIVAL_MAX_US)
        late = 0;
    *real_us = real - late;
    *mono_us = ts_clock_mono_us() - late;
}
