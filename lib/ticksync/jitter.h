/* lib/ticksync/jitter.h - how much queueing a game's messages meet: the
 * round trips' excess over the least one, over the last TS_JITTER_N
 * exchanges, and half a high quantile of it, the timeline's unit of
 * margin (margin 2 covers about that much of one way's queueing). A value
 * type the estimator embeds: the excesses are kept in 16 bits each, and the
 * few largest, which the quantiles are, picked from them again (one pass)
 * when one of them comes or goes: 1 KiB a clock, where a sorted copy of
 * floats took 4. */
#ifndef TICKSYNC_JITTER_H
#define TICKSYNC_JITTER_H

#include <stdbool.h>
#include <stdint.h>

#define TS_JITTER_N      512        /* round trips whose excess sets the jitter */
#define TS_JITTER_MAX_US 16777215   /* an excess is held at this (16.8 s, past any round trip the estimator takes) */

typedef struct {
    uint16_t code[TS_JITTER_N];   /* ring: the last excesses, as ts_jitter_code has them, */
    uint8_t  queued[TS_JITTER_N / 8];   /* ... and a bit each: a queue's (ts_jitter_mark_queued) */
    int      n, next;
    uint16_t least_top;           /* the least of the few largest: a code below it that comes or goes moves nothing */
    bool     spiky;               /* the value is the lower quantile's: a separate mode of spikes above it */
    double   value;               /* the jitter: half a quantile of them */
} ts_jitter_t;

/* An excess (µs) in 16 bits, in the same order: whole µs exact up to
 * 4,095, and above that the leading 12 bits (within 1/4096 of it). */
uint16_t ts_jitter_code(double excess);
/* The excess a code stands for (the middle of those it holds). */
double ts_jitter_decode(uint16_t code);

/* One more round trip's excess over the least, in µs (a negative one
 * counts as 0).
 * The jitter is then half the 99th percentile of the last TS_JITTER_N, or
 * half the 97th where the 99th is over 3 times it: a separate mode of
 * spikes (a radio waking, a handover) that no lead a game would take
 * beats (spiky: the timeline keeps a tick for the input's next copy). */
void ts_jitter_add(ts_jitter_t *j, double excess);
/* The share of the kept excesses over excess (µs); 0 with none kept. */
double ts_jitter_share_over(const ts_jitter_t *j, double excess);
/* The i-th newest excess kept (0: the newest), as its code has it. */
double ts_jitter_newest(const ts_jitter_t *j, int i);
/* The newest n excesses kept were a queue's that will drain (a run of
 * rises the path rule held): the path's own queueing, as the shares below
 * read it, leaves them out. The jitter's value keeps them (a lead that
 * covers congestion covers it). */
void ts_jitter_mark_queued(ts_jitter_t *j, int n);
/* The shares of the kept excesses, the newest skip and a queue's left
 * out, over each of x[0..n) (µs, largest first), in share[0..n), in one
 * pass: each at least one in as many as are counted (a window of them
 * tells no share rarer), 1 with none counted. */
void ts_jitter_shares_over(const ts_jitter_t *j, int skip, const double *x, int n, double *share);

#endif
