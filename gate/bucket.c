/* gate/bucket.c - see bucket.h. */
#include "bucket.h"

void gate_bucket_init(gate_bucket_t *b, double rate, int64_t now_us)
{
    b->rate = rate;
    b->tokens = rate;
    b->last_us = now_us;
}

bool gate_bucket_take(gate_bucket_t *b, int64_t now_us)
{
    if (now_us > b->last_us) {
        b->tokens += (double) (now_us - b->last_us) * b->rate / 1e6;
        if (b->tokens > b->rate)
            b->tokens = b->rate;
        b->last_us = now_us;
    }
    if (b->tokens < 1.0)
        return false;
    b->tokens -= 1.0;
    return true;
}
