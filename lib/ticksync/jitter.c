/* lib/ticksync/jitter.c - see jitter.h. */
#include "jitter.h"

#include <math.h>
#include <stdbool.h>

#include "tuning.h"

#define EXACT 4096   /* codes below this are the excess itself */
#define HALF  2048   /* above, a code is 12 bits (HALF..EXACT-1) shifted left by its scale */

uint16_t ts_jitter_code(double excess)
{
    uint32_t e = excess <= 0 ? 0 : excess < TS_JITTER_MAX_US ? (uint32_t) llround(excess) : TS_JITTER_MAX_US;
    if (e < EXACT)
        return (uint16_t) e;
    int scale = 1;
    while ((e >> scale) >= EXACT)
        scale++;
    return (uint16_t) (EXACT + (scale - 1) * HALF + ((e >> scale) - HALF));
}

double ts_jitter_decode(uint16_t code)
{
    if (code < EXACT)
        return code;
    int scale = (code - EXACT) / HALF + 1;
    double low = (double) ((uint32_t) ((code - EXACT) % HALF + HALF) << scale);
    return low + (double) ((1u << scale) - 1) / 2;
}

/* The top[0..k) are the k largest codes of the ring, largest first. */
static void largest(const ts_jitter_t *j, uint16_t *top, int k)
{
    int have = 0;
    for (int i = 0; i < j->n; i++) {
        uint16_t c = j->code[i];
        if (have == k && c <= top[k - 1])
            continue;
        int at = have < k ? have++ : k - 1;
        while (at > 0 && top[at - 1] < c) {
            top[at] = top[at - 1];
            at--;
        }
        top[at] = c;
    }
}

void ts_jitter_add(ts_jitter_t *j, double excess)
{
    uint16_t c = ts_jitter_code(excess), gone = j->code[j->next];
    bool full = j->n == TS_JITTER_N;
    j->code[j->next] = c;
    j->queued[j->next / 8] &= (uint8_t) ~(1u << (j->next % 8));
    j->next = (j->next + 1) % TS_JITTER_N;
    if (!full)
        j->n++;
    else if (c < j->least_top && gone < j->least_top)
        return;   /* the largest are the same ones */
    /* the quantile q of n values in order is the (n - 1 - q (n - 1))-th
     * from the top (0: the largest) */
    int from_high = j->n - 1 - (int) (TS_TUNING.jitter_q * (j->n - 1));
    int from_low = j->n - 1 - (int) (TS_TUNING.jitter_q_low * (j->n - 1));
    uint16_t top[TS_JITTER_N];
    largest(j, top, from_low + 1);
    /* Queueing's tail is one with the bulk: its 99th percentile sits within
     * about twice the 97th (heavy-tailed, lognormal, a congested uplink),
     * and a lead at the 99th buys the last points. Spikes of a separate
     * mode (a radio waking, a handover: hundreds of ms) put the 99th far
     * above, and no lead a game would take beats them: the lead stays at
     * the 97th then. */
    j->least_top = top[from_low];
    double high = ts_jitter_decode(top[from_high]), low = ts_jitter_decode(top[from_low]);
    j->spiky = high > TS_TUNING.spike_ratio * low;
    j->value = (j->spiky ? low : high) / 2;
}

double ts_jitter_share_over(const ts_jitter_t *j, double excess)
{
    uint16_t c = ts_jitter_code(excess);
    int over = 0;
    for (int i = 0; i < j->n; i++)
        over += j->code[i] > c;
    return j->n ? (double) over / j->n : 0;
}

static int newest_at(const ts_jitter_t *j, int i)   /* the ring's i-th newest (0: the newest) */
{
    return ((j->next - 1 - i) % TS_JITTER_N + TS_JITTER_N) % TS_JITTER_N;
}

static bool queued(const ts_jitter_t *j, int at)
{
    return j->queued[at / 8] >> (at % 8) & 1;
}

double ts_jitter_newest(const ts_jitter_t *j, int i)
{
    return ts_jitter_decode(j->code[newest_at(j, i)]);
}

void ts_jitter_mark_queued(ts_jitter_t *j, int n)
{
    for (int i = 0; i < n && i < j->n; i++) {
        int at = newest_at(j, i);
        j->queued[at / 8] |= (uint8_t) (1u << (at % 8));
    }
}

void ts_jitter_shares_over(const ts_jitter_t *j, int skip, const double *x, int n, double *share)
{
    uint16_t code[TS_JITTER_N];
    int over[TS_JITTER_N + 1] = { 0 }, counted = 0;
    n = n < TS_JITTER_N ? n : TS_JITTER_N;
    for (int i = 0; i < n; i++)
        code[i] = ts_jitter_code(x[i]);
    for (int i = skip < 0 ? 0 : skip; i < j->n; i++) {
        int at = newest_at(j, i);
        if (queued(j, at))
            continue;
        int lo = 0, hi = n;   /* the first x it is over: it is over all from there on */
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            if (j->code[at] > code[mid])
                hi = mid;
            else
                lo = mid + 1;
        }
        over[lo]++;
        counted++;
    }
    for (int i = 0, sum = 0; i < n; i++) {
        sum += over[i];
        share[i] = counted ? fmax((double) sum / counted, 1.0 / counted) : 1;
    }
}
