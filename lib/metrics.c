/* lib/metrics.c - see metrics.h. A histogram's sum is a double kept as
 * its bits in an atomic integer, added by compare-and-swap (or, with one
 * writer, by a load and a store). */
#include "metrics.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { COUNTER, GAUGE, HISTOGRAM } kind_t;

struct ts_metric_t {
    kind_t            kind;
    char             *name, *help, *labels;
    _Atomic uint64_t  value;       /* counter; gauge (as int64 bits); histogram count */
    _Atomic uint64_t  sum_bits;    /* histogram sum: a double's bits, added by compare-and-swap */
    double           *bounds;
    size_t            nbounds;
    _Atomic uint64_t *buckets;     /* nbounds, not cumulative */
    bool              one_writer;
    ts_metric_t      *next;
};

struct ts_metrics_t {
    ts_metric_t *head, *tail;
    bool         one_writer;
};

ts_metrics_t *ts_metrics_new(ts_metrics_writers_t writers)
{
    ts_metrics_t *self = calloc(1, sizeof *self);
    if (self)
        self->one_writer = writers == TS_METRICS_ONE_WRITER;
    return self;
}

static void metric_free(ts_metric_t *m)
{
    free(m->name);
    free(m->help);
    free(m->labels);
    free(m->bounds);
    free((void *) m->buckets);
    free(m);
}

void ts_metrics_destroy(ts_metrics_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    for (ts_metric_t *m = (*self_p)->head, *next; m; m = next) {
        next = m->next;
        metric_free(m);
    }
    free(*self_p);
    *self_p = NULL;
}

static ts_metric_t *add(ts_metrics_t *self, kind_t kind, const char *name, const char *help,
                        const char *labels, const double *bounds, size_t nbounds)
{
    ts_metric_t *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->kind = kind;
    m->one_writer = self->one_writer;
    m->name = strdup(name);
    m->help = strdup(help);
    m->labels = labels ? strdup(labels) : NULL;
    m->nbounds = nbounds;
    if (nbounds) {
        m->bounds = malloc(nbounds * sizeof(double));
        m->buckets = calloc(nbounds, sizeof(uint64_t));
        if (m->bounds)
            memcpy(m->bounds, bounds, nbounds * sizeof(double));
    }
    if (!m->name || !m->help || (labels && !m->labels) || (nbounds && (!m->bounds || !m->buckets))) {
        metric_free(m);
        return NULL;
    }
    if (self->tail)
        self->tail->next = m;
    else
        self->head = m;
    self->tail = m;
    return m;
}

ts_metric_t *ts_metrics_counter(ts_metrics_t *self, const char *name, const char *help, const char *labels)
{
    return add(self, COUNTER, name, help, labels, NULL, 0);
}

ts_metric_t *ts_metrics_gauge(ts_metrics_t *self, const char *name, const char *help, const char *labels)
{
    return add(self, GAUGE, name, help, labels, NULL, 0);
}

ts_metric_t *ts_metrics_histogram(ts_metrics_t *self, const char *name, const char *help,
                                  const char *labels, const double *bounds, size_t nbounds)
{
    return add(self, HISTOGRAM, name, help, labels, bounds, nbounds);
}

/* Adds n to *v: its only writer needs no lock, readers see old or new. */
static void bump(const ts_metric_t *m, _Atomic uint64_t *v, uint64_t n)
{
    if (m->one_writer)
        atomic_store_explicit(v, atomic_load_explicit(v, memory_order_relaxed) + n, memory_order_relaxed);
    else
        atomic_fetch_add_explicit(v, n, memory_order_relaxed);
}

void ts_metric_add(ts_metric_t *m, uint64_t n)
{
    bump(m, &m->value, n);
}

void ts_metric_set(ts_metric_t *m, int64_t v)
{
    atomic_store_explicit(&m->value, (uint64_t) v, memory_order_relaxed);
}

void ts_metric_observe(ts_metric_t *m, double v)
{
    for (size_t i = 0; i < m->nbounds; i++)
        if (v <= m->bounds[i]) {
            bump(m, &m->buckets[i], 1);
            break;
        }
    uint64_t old = atomic_load_explicit(&m->sum_bits, memory_order_relaxed), next;
    do {
        double sum;
        memcpy(&sum, &old, sizeof sum);
        sum += v;
        memcpy(&next, &sum, sizeof next);
        if (m->one_writer) {
            atomic_store_explicit(&m->sum_bits, next, memory_order_relaxed);
            break;
        }
    } while (!atomic_compare_exchange_weak_explicit(&m->sum_bits, &old, next, memory_order_relaxed,
                                                    memory_order_relaxed));
    bump(m, &m->value, 1);
}

uint64_t ts_metric_value(const ts_metric_t *m)
{
    return atomic_load_explicit(&m->value, memory_order_relaxed);
}

/* A growing text buffer for render. */
typedef struct {
    char  *buf;
    size_t len, cap;
    int    failed;
} text_t;

static void put(text_t *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(text_t *t, const char *fmt, ...)
{
    if (t->failed)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            t->failed = 1;
            return;
        }
        if ((size_t) n < t->cap - t->len) {
            t->len += (size_t) n;
            return;
        }
        size_t cap = t->cap * 2 + (size_t) n;
        char *grown = realloc(t->buf, cap);
        if (!grown) {
            t->failed = 1;
            return;
        }
        t->buf = grown;
        t->cap = cap;
    }
}

/* name{labels,extra} with the braces only when there is something inside. */
static void series(text_t *t, const ts_metric_t *m, const char *suffix, const char *extra)
{
    const char *l = m->labels ? m->labels : "";
    const char *comma = m->labels && extra ? "," : "";
    if (m->labels || extra)
        put(t, "%s%s{%s%s%s}", m->name, suffix, l, comma, extra ? extra : "");
    else
        put(t, "%s%s", m->name, suffix);
}

static void render_one(text_t *t, const ts_metric_t *m)
{
    uint64_t v = atomic_load_explicit(&m->value, memory_order_relaxed);
    if (m->kind == COUNTER) {
        series(t, m, "", NULL);
        put(t, " %llu\n", (unsigned long long) v);
    } else if (m->kind == GAUGE) {
        series(t, m, "", NULL);
        put(t, " %lld\n", (long long) (int64_t) v);
    } else {
        uint64_t cum = 0;
        char le[64];
        for (size_t i = 0; i < m->nbounds; i++) {
            cum += atomic_load_explicit(&m->buckets[i], memory_order_relaxed);
            snprintf(le, sizeof le, "le=\"%g\"", m->bounds[i]);
            series(t, m, "_bucket", le);
            put(t, " %llu\n", (unsigned long long) cum);
        }
        series(t, m, "_bucket", "le=\"+Inf\"");
        put(t, " %llu\n", (unsigned long long) (v > cum ? v : cum));
        series(t, m, "_sum", NULL);
        uint64_t bits = atomic_load_explicit(&m->sum_bits, memory_order_relaxed);
        double sum;
        memcpy(&sum, &bits, sizeof sum);
        put(t, " %.9g\n", sum);
        series(t, m, "_count", NULL);
        put(t, " %llu\n", (unsigned long long) (v > cum ? v : cum));
    }
}

char *ts_metrics_render(ts_metrics_t *self)
{
    text_t t = { .buf = malloc(4096), .cap = 4096 };
    if (!t.buf)
        return NULL;
    t.buf[0] = '\0';
    static const char *types[] = { "counter", "gauge", "histogram" };
    /* A family's series are printed together, under the family's first HELP/TYPE. */
    for (ts_metric_t *m = self->head; m; m = m->next) {
        bool seen = false;
        for (ts_metric_t *p = self->head; p != m && !seen; p = p->next)
            seen = strcmp(p->name, m->name) == 0;
        if (seen)
            continue;
        put(&t, "# HELP %s %s\n# TYPE %s %s\n", m->name, m->help, m->name, types[m->kind]);
        for (ts_metric_t *s = m; s; s = s->next)
            if (strcmp(s->name, m->name) == 0)
                render_one(&t, s);
    }
    if (t.failed) {
        free(t.buf);
        return NULL;
    }
    return t.buf;
}
