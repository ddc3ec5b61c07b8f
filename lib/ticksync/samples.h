/* lib/ticksync/samples.h - the clock filter: the last accepted samples
 * (NTP's and chrony's), of which the least-delayed is "chosen", the one a
 * single exchange can best be trusted by; their delays' spread, and the
 * outlier limit it sets. A value type the estimator embeds. */
#ifndef TICKSYNC_SAMPLES_H
#define TICKSYNC_SAMPLES_H

#include <stdint.h>

#include "ticksync.h"   /* TICKSYNC_FILTER_MAX */

/* One exchange as the estimator reads it. */
typedef struct {
    int64_t local;     /* local time of the exchange's middle */
    double  offset;    /* server - local */
    int64_t delay;
} ts_sample_t;

typedef struct {
    ts_sample_t s[TICKSYNC_FILTER_MAX];   /* ring */
    int         size, n, next;
    int         chosen;                   /* index of the least-delayed, -1: none */
} ts_filter_t;

/* An empty filter of size samples (1..TICKSYNC_FILTER_MAX). */
void ts_filter_init(ts_filter_t *f, int size);
void ts_filter_clear(ts_filter_t *f);
/* s joins, the oldest leaves once full, and the least-delayed is chosen
 * again (of equal delays, the latest). */
void ts_filter_add(ts_filter_t *f, const ts_sample_t *s);
/* The chosen sample, or NULL while the filter is empty. */
const ts_sample_t *ts_filter_chosen(const ts_filter_t *f);
/* Its delay, 0 while empty. */
int64_t ts_filter_min_delay(const ts_filter_t *f);
/* The standard deviation of the samples' delays. */
double ts_filter_spread(const ts_filter_t *f);
/* How far above the least delay a sample's is an outlier: ratio times the
 * spread, at least ratio times floor; INFINITY before TS_TUNING.spread_min (4) samples. */
double ts_filter_outlier_limit(const ts_filter_t *f, double ratio, double floor);
/* The server's time stepped by step at local before: the offsets kept
 * from before then move with it. */
void ts_filter_move_before(ts_filter_t *f, double step, int64_t before);

#endif
