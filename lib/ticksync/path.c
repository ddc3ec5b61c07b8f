/* lib/ticksync/path.c - see path.h. */
#include "path.h"

#include <math.h>

#include "fit.h"
#include "tuning.h"

void ts_path_clear(ts_path_t *p)
{
    p->rises = 0;
    p->held = false;
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

/* Whether the run's rises spread over their floor more widely than the
 * path's queueing spreads over its own. A route moves the floor and
 * keeps the queueing: over the least of its rises, each sits as the
 * path's excesses sit over its floor, or under (the least of a few sits
 * higher than the floor of many), so that k of the n pass an excess x
 * as often as k of n draws pass it with the share of the path's
 * excesses (the jitter's, before the run) over x, or less. A queue that
 * will drain (a saturated uplink) spreads its rises over tens of ms
 * that the path's excesses seldom reach. The rises taken largest first,
 * where the k-th pass as they do, by that law, at most
 * TS_TUNING.queue_odds, the run is a queue, for this round trip; every
 * rise of the run counts, so the test gains as the run goes on. The
 * floor is read as the least of the newest p->needed: a spike or a
 * second mode that opened the run sits under it and counts as none (the
 * failover draw 10 of seed 4242, whose route waited 57 s on a floor read
 * off a round trip 18.5 ms over the old path's). The run's earlier rises
 * are the jitter's newest, each over the filter's least as it came. A
 * least that moves in a run only rises, as the run's round trips are
 * admitted (under a wide outlier limit) and push the filter's oldest out:
 * while it is still one of the path's own samples, under the rise, each
 * rise is read off by at most that move; once it is over the rise, the
 * filter has let the run in (a route longer by less than the outlier
 * limit), and no queue is held. Until 2026-11-29 any move let the run
 * in, and a queue whose round trips the filter of a wide path admits was
 * taken as the first of them pushed the least on (the episodes draw 119
 * of seed 6061, under 3.3 ms of log-normal queueing: moves of 1.2 and
 * 4.3 ms, two episodes taken for a path; p99 1.43 -> 0.61 ms). */
#define RUN_MAX 64   /* rises read, at most (TS_TUNING.rises_max is 60) */

static bool spread_as_a_queue(const ts_path_t *p, const ts_jitter_t *j, const ts_filter_t *f, int64_t delay)
{
    if ((double) (ts_filter_min_delay(f) - p->from) > p->rise)
        return false;   /* the filter let the run in: its least is one of the run's */
    int n = p->rises < RUN_MAX ? p->rises : RUN_MAX;
    n = n <= j->n + 1 ? n : j->n + 1;
    int newest = p->needed < n ? p->needed : n;
    double x[RUN_MAX] = { (double) (delay - p->from) }, share[RUN_MAX], least = INFINITY;
    for (int i = 0; i < n; i++) {
        if (i > 0)   /* the run's earlier rises, over the filter's least as each came */
            x[i] = ts_jitter_newest(j, i - 1);
        if (i < newest)
            least = fmin(least, x[i]);
    }
    for (int i = 0; i < n; i++) {   /* over the least, largest first (at most RUN_MAX: insertion) */
        double v = fmax(x[i] - least, 0);
        int at = i;
        for (; at > 0 && x[at - 1] < v; at--)
            x[at] = x[at - 1];
        x[at] = v;
    }
    ts_jitter_shares_over(j, p->rises - 1, x, n - 1, share);
    for (int k = 1; k < n; k++)
        if (ts_fit_binomial_tail(n, share[k - 1], k) <= TS_TUNING.queue_odds)
            return true;
    return false;
}

/* A rise is over the least by rise_us, or by less where the filter
 * rejects it as an outlier: else a new path longer by an amount between
 * the two had every sample rejected, and the clock stayed on the old
 * path's for good. A run's rises are over the least as it was at its
 * first: the new route's admitted samples fill the filter in its size,
 * and a run that needs more would otherwise end there and never finish.
 * How many it needs is read again as the run's least excess falls. */
bool ts_path_rise(ts_path_t *p, const ts_filter_t *f, ts_jitter_t *j, int64_t delay, double rise_us,
                  double outlier_limit, int count)
{
    if (p->rises == 0) {
        p->rise = fmin(rise_us, outlier_limit);
        p->from = ts_filter_min_delay(f);
    }
    double excess = (double) (delay - p->from);
    if (excess <= p->rise) {
        if (p->held)   /* a queue's: no part of the path's own queueing, that the next run is held to */
            ts_jitter_mark_queued(j, p->rises);
        p->rises = 0;
        p->held = false;
        return false;
    }
    if (p->rises++ == 0 || excess < p->run_least) {   /* how long it must be, read as its least falls */
        p->run_least = excess;
        p->needed = ts_path_rises_needed(j, excess, count);
    }
    if (p->rises < p->needed)
        return false;
    p->held = p->rises < TS_TUNING.rises_max && spread_as_a_queue(p, j, f, delay);
    if (!p->held)   /* over the old path's least: a route's move or a queue, no part of the path's own queueing */
        ts_jitter_mark_queued(j, p->rises - 1);
    return !p->held;
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
