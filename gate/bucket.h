/* gate/bucket.h - a token bucket for the per-connection SYNC rate
 * (PROTOCOL.md "Errors", RATE_LIMITED). It holds at most one second's worth
 * of tokens, so a client may burst up to `rate` SYNCs and then keeps to
 * `rate` per second. A plain value type: every connection embeds one. */
#ifndef GATE_BUCKET_H
#define GATE_BUCKET_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
    double  rate;     /* tokens per second, also the capacity */
    double  tokens;
    int64_t last_us;  /* monotonic time of the last refill */
} gate_bucket_t;

void gate_bucket_init(gate_bucket_t *b, double rate, int64_t now_us);
/* Takes one token if there is one; false means over the rate. */
bool gate_bucket_take(gate_bucket_t *b, int64_t now_us);

#endif
