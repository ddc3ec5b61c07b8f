/* lib/ticksync/samples.c - see samples.h. */
#include "samples.h"

#include <math.h>

#include "tuning.h"

void ts_filter_init(ts_filter_t *f, int size)
{
    f->size = size;
    ts_filter_clear(f);
}

void ts_filter_clear(ts_filter_t *f)
{
    f->n = f->next = 0;
    f->chosen = -1;
}

static void choose(ts_filter_t *f)
{
    int best = 0;
    for (int i = 1; i < f->n; i++)
        if (f->s[i].delay < f->s[best].delay || (f->s[i].delay == f->s[best].delay && f->s[i].local > f->s[best].local))
            best = i;
    f->chosen = best;
}

void ts_filter_add(ts_filter_t *f, const ts_sample_t *s)
{
    f->s[f->next] = *s;
    if (f->chosen == f->next)
        f->chosen = -1;   /* the chosen sample has left the filter */
    f->next = (f->next + 1) % f->size;
    if (f->n < f->size)
        f->n++;
    choose(f);
}

const ts_sample_t *ts_filter_chosen(const ts_filter_t *f)
{
    return f->chosen >= 0 ? &f->s[f->chosen] : NULL;
}

int64_t ts_filter_min_delay(const ts_filter_t *f)
{
    return f->chosen >= 0 ? f->s[f->chosen].delay : 0;
}

double ts_filter_spread(const ts_filter_t *f)
{
    double sum = 0, sq = 0;
    for (int i = 0; i < f->n; i++)
        sum += (double) f->s[i].delay;
    double mean = sum / f->n;
    for (int i = 0; i < f->n; i++)
        sq += ((double) f->s[i].delay - mean) * ((double) f->s[i].delay - mean);
    return sqrt(sq / f->n);
}

double ts_filter_outlier_limit(const ts_filter_t *f, double ratio, double floor)
{
    if (f->n < TS_TUNING.spread_min)
        return INFINITY;
    double spread = ts_filter_spread(f);
    return ratio * (spread > floor ? spread : floor);
}

void ts_filter_move_before(ts_filter_t *f, double step, int64_t before)
{
    for (int i = 0; i < f->n; i++)
        if (f->s[i].local < before)
            f->s[i].offset += step;
}
