/* lib/clock.c - see clock.h. */
#include "clock.h"

#include <time.h>

static int64_t read_us(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int64_t ts_clock_real_us(void) { return read_us(CLOCK_REALTIME); }
int64_t ts_clock_mono_us(void) { return read_us(CLOCK_MONOTONIC); }
