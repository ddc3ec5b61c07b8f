/* lib/ticksync/jitter.h - how much queueing a game's messages meet: the
 * round trips' excess over the least one, over the last TS_JITTER_N
 * exchanges, and half a high quantile of it, the timeline's unit of
 * margin (margin 2 covers about that much of one way's queueing). A value
 * type the estimator embeds; the excesses are kept sorted as they come and
 * go, a binary search and a memmove an exchange. */
#ifndef TICKSYNC_JITTER_H
#define TICKSYNC_JITTER_H

#define TS_JITTER_N      512        /* round trips whose excess sets the jitter */
#define TS_JITTER_MAX_US 16777216   /* 2^24 µs: an excess is kept whole in a float up to this, and held at it past */

typedef struct {
    float  excess[TS_JITTER_N];   /* ring: the last excesses, whole µs (4 KiB a clock, where doubles took 8) */
    float  sorted[TS_JITTER_N];   /* the same values in order */
    int    n, next;
    double value;                 /* the jitter: half a quantile of them */
} ts_jitter_t;

/* One more round trip's excess over the least, in whole µs (a negative
 * one counts as 0).
 * The jitter is then half the 99th percentile of the last TS_JITTER_N, or
 * half the 97th where the 99th is over 3 times it: a separate mode of
 * spikes (a radio waking, a handover) that no lead a game would take
 * beats. */
void ts_jitter_add(ts_jitter_t *j, double excess);

#endif
