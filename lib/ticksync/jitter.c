/* lib/ticksync/jitter.c - see jitter.h. */
#include "jitter.h"

#include <string.h>

#include "tuning.h"

/* Index of the first of the n sorted values not less than v. */
static int lower_bound(const float *sorted, int n, float v)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (sorted[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void ts_jitter_add(ts_jitter_t *j, double excess)
{
    /* whole µs, exact in a float up to 2^24 (16.7 s, past any round trip
     * the estimator takes) */
    float e = excess <= 0 ? 0 : excess < TS_JITTER_MAX_US ? (float) excess : (float) TS_JITTER_MAX_US;
    float *sorted = j->sorted;
    if (j->n == TS_JITTER_N) {   /* the oldest leaves the sorted copy */
        int at = lower_bound(sorted, j->n, j->excess[j->next]);
        memmove(sorted + at, sorted + at + 1, (size_t) (j->n - at - 1) * sizeof *sorted);
        j->n--;
    }
    int at = lower_bound(sorted, j->n, e);
    memmove(sorted + at + 1, sorted + at, (size_t) (j->n - at) * sizeof *sorted);
    sorted[at] = e;
    j->n++;
    j->excess[j->next] = e;
    j->next = (j->next + 1) % TS_JITTER_N;
    /* Queueing's tail is one with the bulk: its 99th percentile sits within
     * about twice the 97th (heavy-tailed, lognormal, a congested uplink),
     * and a lead at the 99th buys the last points. Spikes of a separate
     * mode (a radio waking, a handover: hundreds of ms) put the 99th far
     * above, and no lead a game would take beats them: the lead stays at
     * the 97th then. */
    double high = sorted[(int) (TS_TUNING.jitter_q * (j->n - 1))];
    double low = sorted[(int) (TS_TUNING.jitter_q_low * (j->n - 1))];
    j->value = (high > TS_TUNING.spike_ratio * low ? low : high) / 2;
}
