/* lib/ticksync/jitter.c - see jitter.h. */
#include "jitter.h"

#include <string.h>

#include "fit.h"

#define JITTER_Q     0.99   /* the jitter is half this quantile of the excesses (bench/RESULTS.md 5b) ... */
#define JITTER_Q_LOW 0.97   /* ... or of this one, when the tail above it is a separate mode: */
#define SPIKE_RATIO  3.0    /* the 99th over this many times the 97th */

void ts_jitter_add(ts_jitter_t *j, double e)
{
    e = e > 0 ? e : 0;
    double *sorted = j->sorted;
    if (j->n == TS_JITTER_N) {   /* the oldest leaves the sorted copy */
        int at = ts_fit_lower_bound(sorted, j->n, j->excess[j->next]);
        memmove(sorted + at, sorted + at + 1, (size_t) (j->n - at - 1) * sizeof *sorted);
        j->n--;
    }
    int at = ts_fit_lower_bound(sorted, j->n, e);
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
    double high = sorted[(int) (JITTER_Q * (j->n - 1))];
    double low = sorted[(int) (JITTER_Q_LOW * (j->n - 1))];
    j->value = (high > SPIKE_RATIO * low ? low : high) / 2;
}
