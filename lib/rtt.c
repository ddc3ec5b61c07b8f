/* lib/rtt.c - see rtt.h. State is kept in double so that repeated 7/8
 * smoothing of integers does not stall a few microseconds short of a
 * constant input, as truncating integer arithmetic does. */
#include "rtt.h"

#include <math.h>

int64_t ts_rtt_sample(int64_t t6_t3, int64_t t4, int64_t t5)
{
    if (t5 < t4 || t6_t3 < 0)
        return -1;
    /* t5 - t4 could overflow for hostile values; compare without subtracting past range. */
    if (t4 < 0 && t5 > INT64_MAX + t4)
        return -1;
    int64_t turnaround = t5 - t4;
    if (turnaround > t6_t3)
        return -1;
    return t6_t3 - turnaround;
}

void ts_rtt_update(ts_rtt_t *rtt, int64_t sample)
{
    double r = (double) sample;
    if (!rtt->primed) {
        rtt->srtt = r;
        rtt->rttvar = r / 2;
        rtt->min_rtt = sample;
        rtt->primed = true;
    } else {
        rtt->rttvar = 0.75 * rtt->rttvar + 0.25 * fabs(rtt->srtt - r);
        rtt->srtt = 0.875 * rtt->srtt + 0.125 * r;
        if (sample < rtt->min_rtt)
            rtt->min_rtt = sample;
    }
    rtt->last = sample;
}

void ts_rtt_restore(ts_rtt_t *rtt, int64_t srtt, int64_t rttvar, int64_t min_rtt, int64_t last)
{
    rtt->primed = srtt > 0 || min_rtt > 0 || last > 0;
    rtt->srtt = (double) srtt;
    rtt->rttvar = (double) rttvar;
    rtt->min_rtt = min_rtt;
    rtt->last = last;
}

int64_t ts_rtt_srtt(const ts_rtt_t *rtt) { return (int64_t) llround(rtt->srtt); }
int64_t ts_rtt_rttvar(const ts_rtt_t *rtt) { return (int64_t) llround(rtt->rttvar); }
