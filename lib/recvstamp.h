/* lib/recvstamp.h - reads stamped with the time the kernel received the
 * bytes (SO_TIMESTAMPNS), for programs whose loop may read late: the gate
 * stamps t2 and t6 with it, the bot measures the delays it really applied. */
#ifndef TS_LIB_RECVSTAMP_H
#define TS_LIB_RECVSTAMP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

/* Asks the kernel to stamp what arrives on fd from now on. When fd is the
 * host's first socket to ask, the kernel turns stamping on a moment later
 * (deferred work): what arrives before is stamped when it is read. */
void ts_stamp_arrivals(int fd);

/* recvmsg with MSG_DONTWAIT: like recvfrom (from and from_len may be NULL),
 * and *arrived_us is the real time (µs since the epoch) at which the kernel
 * received the last of the bytes read; the time now when it gave none, 0
 * when nothing was read. */
ssize_t ts_recv_stamped(int fd, void *buf, size_t cap, struct sockaddr_storage *from, socklen_t *from_len,
                        int64_t *arrived_us);

/* An arrival stamp older than this is taken for a step of the real clock. */
#define TS_ARRIVAL_MAX_US 1000000

/* Both clocks as they read when the kernel received the bytes: *real_us and
 * *mono_us are now, taken back by how long ago arrived_us (real µs, from
 * ts_recv_stamped) was; just now when the stamp is in the future or more
 * than TS_ARRIVAL_MAX_US old. */
void ts_arrival_clocks(int64_t arrived_us, int64_t *real_us, int64_t *mono_us);

#endif
