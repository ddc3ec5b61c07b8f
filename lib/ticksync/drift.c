/* lib/ticksync/drift.c - see drift.h. */
#include "drift.h"

#include <math.h>

#include "fit.h"
#include "tuning.h"

void ts_drift_init(ts_drift_t *d, int64_t min_span_us)
{
    *d = (ts_drift_t) { .min_span = (double) min_span_us, .error = INFINITY, .carried.se = NAN,
                        .bend_since = INT64_MIN };
}

static double clamp_freq(double f)
{
    return f > TS_TUNING.max_freq ? TS_TUNING.max_freq : f < -TS_TUNING.max_freq ? -TS_TUNING.max_freq : f;
}

/* The points as fit.h's arrays: each one's time from the earliest's (*lo;
 * *hi the latest's), its offset from the origin's, and its weight: a
 * point's offset is wrong by at most half its delay's excess over the
 * least delay among them, so the less excess, the more weight. */
static void points_arrays(const ts_rings_t *r, double *t, double *y, double *w, int64_t *lo, int64_t *hi)
{
    int64_t dmin = INT64_MAX;
    *lo = INT64_MAX;
    *hi = INT64_MIN;
    for (int i = 0; i < r->npoints; i++) {
        const ts_point_t *p = ts_rings_point(r, i);
        int64_t at = ts_rings_local(r, p->local);
        *lo = at < *lo ? at : *lo;
        *hi = at > *hi ? at : *hi;
        dmin = p->delay < dmin ? p->delay : dmin;
    }
    for (int i = 0; i < r->npoints; i++) {
        const ts_point_t *p = ts_rings_point(r, i);
        double excess = (double) (p->delay - dmin) + TS_TUNING.weight_floor_us;
        t[i] = (double) (ts_rings_local(r, p->local) - *lo);
        y[i] = p->offset;
        w[i] = 1.0 / (excess * excess);
    }
}

bool ts_drift_points_line(const ts_rings_t *r, int64_t *lo, int64_t *hi, ts_fit_line_t *line)
{
    double t[TICKSYNC_POINTS_MAX], y[TICKSYNC_POINTS_MAX], w[TICKSYNC_POINTS_MAX];
    points_arrays(r, t, y, w, lo, hi);
    return ts_fit_line(t, y, w, r->npoints, line);
}

/* Whether the ways from the first (ts_rings_ways_from: since the last
 * server step) span enough for ts_drift_from_ways: until they do, the
 * drift found before the step stays. */
static bool ways_span(const ts_drift_t *d, const ts_rings_t *r, int first)
{
    int n = r->nways - first;
    int64_t t0 = ts_rings_local(r, ts_rings_way(r, first)->local);
    int64_t last = ts_rings_local(r, ts_rings_way(r, first + n - 1)->local);
    return n >= TS_TUNING.ways_min && (double) (last - t0) >= d->min_span;
}

/* How far a drift carried over a new path at carry_local has grown stale
 * by now: TS_TUNING.carry_wander a second (a crystal's rate wanders with its
 * temperature), so that the new path's own takes over. */
static double carried_se(const ts_drift_t *d, int64_t now)
{
    return hypot(d->carried.se, TS_TUNING.carry_wander * (double) (now - d->carry_local) / 1e6);
}

/* A source gives the drift: rate, weighed by its stated se against the
 * drift a new path carried over (a path's change does not change the
 * clock's rate), and error, the figure the drift's users take, weighed the
 * same way. */
static void set_drift(ts_drift_t *d, double rate, double se, double error, int64_t now)
{
    if (!isfinite(d->carried.se)) {
        d->freq = clamp_freq(rate);
        d->error = error;
        return;
    }
    if (!isfinite(se)) {
        d->freq = clamp_freq(d->carried.rate);
        d->error = carried_se(d, now);
        return;
    }
    double carried = carried_se(d, now), v = se * se, c = carried * carried, e = error * error;
    d->freq = clamp_freq((rate * c + d->carried.rate * v) / (v + c));
    d->error = isfinite(error) ? sqrt(e * c / (e + c)) : carried;
}

/* The points' line, a weighted least-squares fit of offset on local time,
 * once the points span min_span: its slope's standard error is the drift's
 * noise (the level shrinks the drift by it), and its slope is the drift
 * until the ways span enough to give it. */
void ts_drift_from_points(ts_drift_t *d, const ts_rings_t *r, int64_t since)
{
    if (r->npoints < TS_TUNING.fit_points)
        return;
    int64_t lo, hi;
    ts_fit_line_t line;
    if (!ts_drift_points_line(r, &lo, &hi, &line) || (double) (hi - lo) < d->min_span)
        return;
    d->line = (ts_rate_t) { line.slope, line.se };
    d->known = true;
    if (!ways_span(d, r, ts_rings_ways_from(r, since)))
        set_drift(d, line.slope, line.se, line.se, hi);
}

/* The bend test, wherever a window's halves are compared: drifts apart
 * by apart bend it where apart stands out of se, the error of the drift
 * the halves are read with, by more than bend_z. */
static bool bends(double apart, double se)
{
    return apart > TS_TUNING.bend_z * se;
}

/* The two ways' chords (slopes su, sd, errors eu, ed; residuals' median
 * spreads spu, spd) as one drift: averaged where the ways queue alike,
 * with their chords' error or how far apart they are if more
 * (ts_fit_alike_error); where one way queues far more (their spreads
 * apart by more than uneven: a congested uplink), weighed by their
 * errors, the clean way's chord the more exact, with the error they give
 * together. *alike says which. */
static ts_rate_t two_ways(double su, double eu, double spu, double sd, double ed, double spd, bool *alike)
{
    *alike = spu <= TS_TUNING.uneven * spd && spd <= TS_TUNING.uneven * spu;
    if (*alike)
        return (ts_rate_t) { (su - sd) / 2, ts_fit_alike_error(su, eu, sd, ed) };
    double wu = ed * ed / (eu * eu + ed * ed), wd = 1 - wu;
    return (ts_rate_t) { wu * su - wd * sd, hypot(wu * eu, wd * ed) };
}

/* The drift from the long history's blocks, as ts_drift_from_ways takes
 * it from the ways, with its error: *slope and *err. False while there are
 * too few blocks, or where a bend shows over them (their halves' drifts
 * apart by more than bend_z of their errors), or a curve the halves do not show (the runs test): a rate
 * that changes is the ways' window's to follow. */
static bool long_slope(const ts_rings_t *r, double *slope, double *err)
{
    int n = r->nblocks;
    if (n < TS_TUNING.blocks_min)
        return false;
    int64_t t0 = ts_block_time(ts_rings_block(r, 0));
    double tu[TS_RINGS_BLOCKS], yu[TS_RINGS_BLOCKS], td[TS_RINGS_BLOCKS], yd[TS_RINGS_BLOCKS];
    for (int i = 0; i < n; i++) {
        const ts_block_t *b = ts_rings_block(r, i);
        tu[i] = (double) ((int64_t) b->t_up - t0);
        yu[i] = b->up;
        td[i] = (double) ((int64_t) b->t_down - t0);
        yd[i] = b->down;
    }
    int mid = n / 2;
    double e1, e2, e3, e4;
    double older = (ts_fit_chord(tu, yu, mid, &e1, NULL) - ts_fit_chord(td, yd, mid, &e2, NULL)) / 2;
    double newer = (ts_fit_chord(tu + mid, yu + mid, n - mid, &e3, NULL)
                    - ts_fit_chord(td + mid, yd + mid, n - mid, &e4, NULL)) / 2;
    double halves_se = hypot(hypot(e1, e2), hypot(e3, e4)) / 2;
    if (bends(fabs(newer - older), halves_se))
        return false;
    if (ts_fit_too_few_runs(tu, yu, n, TS_TUNING.runs_z) || ts_fit_too_few_runs(td, yd, n, TS_TUNING.runs_z))
        return false;   /* a curve the halves do not show (a sinusoid's over about a period) */
    double eu, ed, spu, spd;
    double su = ts_fit_chord(tu, yu, n, &eu, &spu), sd = ts_fit_chord(td, yd, n, &ed, &spd);
    bool alike;
    ts_rate_t rate = two_ways(su, eu, spu, sd, ed, spd, &alike);
    *slope = rate.rate;
    *err = rate.se;
    return true;
}

void ts_drift_from_blocks(ts_drift_t *d, const ts_rings_t *r)
{
    d->long_known = long_slope(r, &d->longer.rate, &d->longer.se);
}

/* The ways a drift is read over: the rings' ways from first on (n of
 * them), each way's time from the first's and its two measurements. */
typedef struct {
    int n;
    double t[TS_RINGS_WAYS], up[TS_RINGS_WAYS], down[TS_RINGS_WAYS];
} window_t;

/* Each way's lower hull of the window's ways [lo, hi). */
static void hulls(const window_t *w, int lo, int hi, ts_fit_hull_t *hu, ts_fit_hull_t *hd)
{
    ts_fit_hull(w->t, w->up, lo, hi, hu);
    ts_fit_hull(w->t, w->down, lo, hi, hd);
}

/* A rate's turn (its most or least) in the middle of the window [from, n)
 * leaves the two halves' drifts (older, newer; their difference's error
 * halves_se) alike, and a line over the window then misses the turn as a
 * bend of the same size would. The middle half's drift against the
 * halves' mean, doubled, is the change a bend between the halves would
 * have: returned (as its size) where it would bend the window and stands
 * out of its error by turn_z, else 0. */
static double turn_in_middle(const window_t *w, int from, double older, double newer, double halves_se)
{
    int q1 = from + (w->n - from) / 4, q3 = from + 3 * (w->n - from) / 4;
    ts_fit_hull_t mu, md;
    hulls(w, q1, q3, &mu, &md);
    double middle = (ts_fit_hull_slope(w->t, w->up, &mu) - ts_fit_hull_slope(w->t, w->down, &md)) / 2;
    double turn = fabs(2 * (middle - (older + newer) / 2));
    if (turn <= fabs(newer - older) || !bends(turn, halves_se))   /* (the caller has the window's span) */
        return 0;
    return turn > TS_TUNING.turn_z * ts_fit_turn_error(w->t, w->up, w->down, q1, q3, &mu, &md, halves_se) ? turn : 0;
}

/* The window [from, n) whose line misses no bend, and each way's lower
 * hull of it (hu, hd). A drift that changes bends the edges: the slopes of
 * their older and newer halves differ by about the bend's curvature times
 * half the span. While they differ by more than noise can (the test
 * above), only the newer half is kept, as long as it spans
 * bend_min_spans / 2 min_spans: chords over 20 s are off by 5-25 ppm under
 * 2 ms of jitter. d->bend_us is how far the kept window's line misses its
 * bend, a quarter of the halves' difference times the span. */
static int unbent_window(ts_drift_t *d, const window_t *w, ts_fit_hull_t *hu, ts_fit_hull_t *hd)
{
    const double *t = w->t, *up = w->up, *down = w->down;
    int from = 0, n = w->n;
    d->bend_us = 0;
    ts_fit_hull_t ou, od, nu, nd;   /* the window's halves' hulls, older and newer */
    while (n - from >= 2 * TS_TUNING.ways_min && t[n - 1] - t[from] >= 2 * d->min_span) {
        int mid = from + (n - from) / 2;
        hulls(w, from, mid, &ou, &od);
        hulls(w, mid, n, &nu, &nd);
        const ts_fit_hull_t *const halves[4] = { &ou, &od, &nu, &nd };
        double older, newer, se = ts_fit_halves(t, up, down, from, mid, n, halves, &older, &newer);
        double span = t[n - 1] - t[from], apart = fabs(newer - older);
        bool halvable = span >= TS_TUNING.bend_min_spans * d->min_span;   /* its newer half is kept */
        if (halvable && !bends(apart, se))   /* alike halves: a turn? */
            apart = fmax(apart, turn_in_middle(w, from, older, newer, se));
        d->bend_us = apart * span / 4;
        if (!halvable || !bends(apart, se)) {   /* the whole of [from, n): the halves' hulls joined */
            ts_fit_hull_join(t, up, &ou, &nu, hu);
            ts_fit_hull_join(t, down, &od, &nd, hd);
            return from;
        }
        from = mid;
        *hu = nu;
        *hd = nd;
    }
    if (from == 0)
        hulls(w, 0, n, hu, hd);
    return from;
}

/* Whether the long history's drift, where it gives one, is the drift
 * rather than the ways' chords: it is the more exact, and either the
 * window shows no bend or the halved window's chords agree with it within
 * agree_k of their errors together. The bend test's halves state half
 * their real error (DESIGN, "The drift: one chooser, one error"), so
 * about one draw in a hundred halves a window whose rate has not moved;
 * the newer half's chords, some 100 times less exact, then agree with the
 * long history and leave it, where a rate that did move takes the
 * window's. */
static bool long_holds(const ts_drift_t *d, int from, const ts_rate_t *chords)
{
    if (!d->long_known || d->longer.se >= chords->se)
        return false;
    return from == 0 || fabs(chords->rate - d->longer.rate) <= TS_TUNING.agree_k * hypot(chords->se, d->longer.se);
}

/* The drift from the ways' lower edges, once they span min_span and the
 * points' line has a standard error too: the way up rises by it and the
 * way down falls by it, so each way gives it apart and the two are
 * averaged. The points' least-squares slope, which near-minimum samples of
 * a heavy tail still tilt by tens of ppm, is not used once this is. */
void ts_drift_from_ways(ts_drift_t *d, const ts_rings_t *r, int64_t since)
{
    int first = ts_rings_ways_from(r, since), n = r->nways - first;
    if (!d->known || !ways_span(d, r, first))
        return;
    int64_t t0 = ts_rings_local(r, ts_rings_way(r, first)->local);
    window_t w = { .n = n };
    for (int i = 0; i < n; i++) {
        const ts_way_t *way = ts_rings_way(r, first + i);
        w.t[i] = (double) (ts_rings_local(r, way->local) - t0);
        w.up[i] = way->up;
        w.down[i] = way->down;
    }
    ts_fit_hull_t hu, hd;
    int from = unbent_window(d, &w, &hu, &hd);
    d->bend_since = ts_rings_local(r, ts_rings_way(r, first + from)->local);
    double eu, ed, spu, spd;
    double su = ts_fit_chord_of(w.t, w.up, from, n, &hu, &eu, &spu);
    double sd = ts_fit_chord_of(w.t, w.down, from, n, &hd, &ed, &spd);
    int64_t now = t0 + (int64_t) w.t[n - 1];
    bool alike;
    ts_rate_t chords = two_ways(su, eu, spu, sd, ed, spd, &alike);
    if (alike) {
        /* Alike: each way counts the same. The drift's error is the
         * points' line's, which keeps a drift that noise may have made from
         * tilting the level, but at most alike_k times the chords' own (or
         * how far the two ways' drifts are apart, if more): their stated
         * error is their typical size, not a bound (test_fit: |error| /
         * stated p90 4.2), and the points' line alone, which near-minimum
         * points under a wide queueing tilt, can be ten times what two
         * agreeing chords show (mobile: 10 ppm against 1.4), which left the
         * drift under-used and the level lagging by the rest of it times its
         * minima's age. */
        if (long_holds(d, from, &chords))
            chords = d->longer;
        set_drift(d, chords.rate, chords.se, fmin(d->line.se, TS_TUNING.alike_k * chords.se), now);
        return;
    }
    /* One way queues and the other does not (a congested uplink): the clean
     * way's chord is the more exact; the two are weighted by their errors,
     * and theirs is the drift's, where the points' line (tilted by the
     * queueing way) would overstate it and the drift be under-used. */
    set_drift(d, chords.rate, chords.se, chords.se, now);
}

double ts_drift_error(const ts_drift_t *d)
{
    return d->error;
}

double ts_drift_error_or(const ts_drift_t *d, double unknown)
{
    return d->known && isfinite(d->error) ? d->error : unknown;
}

/* The drift as it is at local, carried over (set_drift weighs it). */
static void carry(ts_drift_t *d, int64_t local)
{
    d->carry_local = local;
    d->carried = (ts_rate_t) { d->freq, d->error };   /* an error not finite: none */
}

void ts_drift_new_path(ts_drift_t *d, int64_t local)
{
    if (d->known)
        carry(d, local);
    d->long_known = false;
    d->bend_since = INT64_MIN;
}

void ts_drift_stepped(ts_drift_t *d, int64_t local)
{
    if (d->long_known)   /* (a changing rate's drift would be carried stale: none) */
        carry(d, local);
    d->long_known = false;
}
