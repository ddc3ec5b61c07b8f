/* lib/metrics.h - counters, gauges and histograms rendered in the
 * Prometheus text exposition format. Register everything at start-up from
 * one thread; after that updates are lock-free atomics and render may run
 * concurrently with them. A registry made for TS_METRICS_ANY_WRITER takes
 * updates from any thread (locked read-modify-writes); one made for
 * TS_METRICS_ONE_WRITER takes them from a single thread only (plain atomic
 * loads and stores, several times cheaper: the gate's loop). */
#ifndef TS_LIB_METRICS_H
#define TS_LIB_METRICS_H

#include <stddef.h>
#include <stdint.h>

typedef struct ts_metrics_t ts_metrics_t;
typedef struct ts_metric_t  ts_metric_t;   /* one series; owned by the registry */

typedef enum { TS_METRICS_ANY_WRITER, TS_METRICS_ONE_WRITER } ts_metrics_writers_t;

ts_metrics_t *ts_metrics_new(ts_metrics_writers_t writers);
void ts_metrics_destroy(ts_metrics_t **self_p);

/* Each returns a series of family name with the given labels (a Prometheus
 * label set without braces, 'code="2"', or NULL). Series of one family must
 * share help and type. Returns NULL when out of memory. */
ts_metric_t *ts_metrics_counter(ts_metrics_t *self, const char *name, const char *help, const char *labels);
ts_metric_t *ts_metrics_gauge(ts_metrics_t *self, const char *name, const char *help, const char *labels);
/* bounds: ascending upper bounds of the buckets (+Inf is implied). */
ts_metric_t *ts_metrics_histogram(ts_metrics_t *self, const char *name, const char *help,
                                  const char *labels, const double *bounds, size_t nbounds);

void ts_metric_add(ts_metric_t *m, uint64_t n);     /* counter */
void ts_metric_set(ts_metric_t *m, int64_t v);      /* gauge */
void ts_metric_observe(ts_metric_t *m, double v);   /* histogram */
uint64_t ts_metric_value(const ts_metric_t *m);     /* counter value or histogram count */

/* The whole exposition, malloc'd and NUL-terminated (caller frees), or NULL. */
char *ts_metrics_render(ts_metrics_t *self);

#endif
