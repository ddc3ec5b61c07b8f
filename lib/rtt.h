/* lib/rtt.h - the server's round-trip estimator (PROTOCOL.md "The two-sided
 * exchange"): RFC 6298 smoothing with SRTT gain 1/8 and RTTVAR gain 1/4; the
 * first sample sets SRTT = R, RTTVAR = R/2.
 *
 * Unlike most modules this is a plain value type, not an opaque one: every
 * online player embeds one, and a heap object apiece would cost an
 * allocation and a pointer per player for twenty bytes of state. */
#ifndef TS_LIB_RTT_H
#define TS_LIB_RTT_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
    double  srtt;      /* smoothed round trip, us (0 before the first sample) */
    double  rttvar;    /* its variation, us */
    int64_t min_rtt;   /* smallest valid sample, us (0 before the first) */
    int64_t last;      /* last valid sample, us */
    bool    primed;    /* at least one valid sample seen */
} ts_rtt_t;

/* Validity of one exchange: rtt = (t6 - t3) - (t5 - t4). The client's
 * turnaround t5 - t4 must be neither negative nor larger than t6 - t3.
 * Returns the sample in us, or -1 for an invalid one. */
int64_t ts_rtt_sample(int64_t t6_t3, int64_t t4, int64_t t5);

/* Folds a valid sample (>= 0) into the estimator. */
void ts_rtt_update(ts_rtt_t *rtt, int64_t sample);

/* Restores an estimator from stored integer values (srtt 0 = never primed). */
void ts_rtt_restore(ts_rtt_t *rtt, int64_t srtt, int64_t rttvar, int64_t min_rtt, int64_t last);

/* Rounded values, 0 before the first sample. */
int64_t ts_rtt_srtt(const ts_rtt_t *rtt);
int64_t ts_rtt_rttvar(const ts_rtt_t *rtt);

#endif
