/* tools/delayq.h - the bot's network in user space: messages held until
 * their delivery time, in a binary min-heap by time. Each entry carries a
 * copy of the message (up to DELAYQ_BYTES) and who it is for. */
#ifndef TOOLS_DELAYQ_H
#define TOOLS_DELAYQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DELAYQ_BYTES 256

typedef struct {
    int64_t  due;        /* monotonic µs */
    uint64_t order;      /* ties: first in, first out */
    uint32_t player;
    uint8_t  kind;       /* the caller's: direction and transport */
    int64_t  injected;   /* the delay this message was given, µs */
    uint16_t len;
    uint8_t  bytes[DELAYQ_BYTES];
} delayq_item_t;

typedef struct delayq_t delayq_t;

delayq_t *delayq_new(void);
void delayq_destroy(delayq_t **self_p);

/* Queues a copy of bytes. Returns -1 when too long or out of memory. */
int delayq_push(delayq_t *self, int64_t due, uint32_t player, uint8_t kind, int64_t injected,
                const uint8_t *bytes, size_t len);
/* The earliest item, when its time has come by now: copied to *out and
 * removed. False otherwise. */
bool delayq_pop_due(delayq_t *self, int64_t now, delayq_item_t *out);
/* Time of the earliest item, INT64_MAX when empty. */
int64_t delayq_next(const delayq_t *self);
size_t delayq_len(const delayq_t *self);

#endif
