/* lib/ticksync/path.c - see path.h. */
#include "path.h"

#include <math.h>

#include "tuning.h"

void ts_path_clear(ts_path_t *p)
{
    p->rises = 0;
}

/* The least k with p^k at most TS_TUNING.rise_odds, p the share of the
 * round trips over least (the chance that k of them all pass the least
 * the run met). A way up queueing 15 ms on average passes 20 ms a quarter
 * of the time, six in a row every hour or so; it takes 11. A route 36 ms
 * longer under bimodal queueing whose second mode is 16 ms, a rise of
 * 5.6 ms passed 45 % of the time, took 17 at that rise and takes 6 at the
 * run's least (the failover draw 115 of seed 4242). */
int ts_path_rises_needed(const ts_jitter_t *j, double least, int count)
{
    double p = ts_jitter_share_over(j, least), chance = 1;
    int k = 0;
    while (k < count || (chance > TS_TUNING.rise_odds && k < TS_TUNING.rises_max)) {
        chance *= p;
        k++;
    }
    return k;
}

/* A rise is over the least by rise_us, or by less where the filter
 * rejects it as an outlier: else a new path longer by an amount between
 * the two had every sample rejected, and the clock stayed on the old
 * path's for good. A run's rises are over the least as it was at its
 * first: the new route's admitted samples fill the filter in its size,
 * and a run that needs more would otherwise end there and never finish.
 * How many it needs is read again as the run's least excess falls. */
bool ts_path_rise(ts_path_t *p, const ts_filter_t *f, const ts_jitter_t *j, int64_t delay, double rise_us,
                  double outlier_limit, int count)
{
    if (p->rises == 0) {
        p->rise = fmin(rise_us, outlier_limit);
        p->from = ts_filter_min_delay(f);
    }
    double excess = (double) (delay - p->from);
    if (excess <= p->rise) {
        p->rises = 0;
        return false;
    }
    if (p->rises++ == 0 || excess < p->run_least) {   /* how long it must be, read as its least falls */
        p->run_least = excess;
        p->needed = ts_path_rises_needed(j, excess, count);
    }
    return p->rises >= p->needed;
}

/* A route longer by about the outlier limit has one of its round trips
 * let in under it; the filter's spread grows with it, and the limit with
 * that, so no run of rises follows: the filter turns over to the new
 * route, and the longer way keeps its old edge until the window forgets
 * it (the --wide draw 186 of seed 2718: 12.8 ms longer, 49.5 s late).
 * A round trip moves with neither the rate nor a server step, so on one
 * path the ways' round trips are alike in law (exchangeable): where the
 * filter's least sits above k of the N ways (the filter's n among them),
 * the chance that its n all rank above those k is C(N - k, n) / C(N, n).
 * At most TS_TUNING.rise_odds, with the least also above the edges' ways'
 * least by more than the model's error of the edges (the step limit, as
 * a shorter route is told), it is a new path. The estimator asks as the
 * filter's least rises (its least sample left), where the chance is
 * least: ways that leave the ring, or the filter for those before it,
 * only raise it. */
bool ts_path_filter_risen(const ts_filter_t *f, const ts_rings_t *r, const ts_level_t *l, const ts_drift_t *d,
                          double server_step_us)
{
    int n = f->n, before = r->nways - n;
    if (!l->edges || n < f->size || before < 1)
        return false;
    double least_trip = (double) ts_filter_min_delay(f);
    double limit = ts_level_step_limit(l, d, ts_filter_chosen(f)->local, server_step_us);
    if (least_trip - l->trip_least <= limit)
        return false;
    int below = 0;
    for (int i = 0, at = ts_rings_at(r->ways_next, r->nways, TS_RINGS_WAYS, 0); i < before; i++) {
        const ts_way_t *w = &r->ways[at];
        below += (double) w->up + (double) w->down < least_trip;
        at = at + 1 < TS_RINGS_WAYS ? at + 1 : 0;   /* (no division a way) */
    }
    double chance = 1;
    for (int i = 0; i < n; i++)
        chance *= (double) (r->nways - below - i) / (r->nways - i);
    return chance <= TS_TUNING.rise_odds;
}
