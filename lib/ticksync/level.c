/* lib/ticksync/level.c - see level.h. */
#include "level.h"

#include <math.h>

#include "fit.h"
#include "tuning.h"

void ts_level_init(ts_level_t *l, double up_fraction)
{
    *l = (ts_level_t) { .up_fraction = up_fraction };
}

void ts_level_clear(ts_level_t *l)
{
    l->fitted = l->edges = false;
}

/* The level from each way's least measurement, apart: queueing only ever
 * adds delay, so over the ways ring the least up is the offset plus the
 * path's fixed way up, and the least down its fixed way down minus the
 * offset (each brought to the newest sample's time along the drift).
 * Their up_fraction-weighted difference is the offset, wrong only by the
 * least queueing either way met, which shrinks as samples come, where a
 * single sample's (or a mean of near-minimum samples') error is the
 * difference of two queueings met together. */
static void from_ways(ts_level_t *l, const ts_rings_t *r, const ts_drift_t *d, int64_t since)
{
    int64_t ref = ts_rings_local(r, ts_rings_way(r, r->nways - 1)->local);
    /* a slope not yet told from noise would tilt the minima by its noise
     * times their age: it counts by how far it stands out of its error,
     * f^4 / (f^4 + (z se)^4): half at z standard errors, as good as none
     * below, nearly whole above (with f^2 / (f^2 + (z se)^2) a clear drift
     * of 20 ppm at 3 ppm of error was used at 92 %, and the minima fell
     * behind by 8 % of the drift over their age) */
    double se = ts_drift_error(d), f2 = d->freq * d->freq, se2 = TS_TUNING.freq_z * TS_TUNING.freq_z * se * se;
    double slope = d->known && f2 + se2 > 0 ? d->freq * f2 * f2 / (f2 * f2 + se2 * se2) : 0;
    /* after a server step, the older ways (moved by the step's estimate)
     * serve until TS_TUNING.ways_min newer ones are in */
    double ups[TS_FIT_EDGE_K] = { 0 }, downs[TS_FIT_EDGE_K] = { 0 };   /* n is at least TS_TUNING.ways_min: filled */
    int nup = 0, ndown = 0;
    double trip = INFINITY;   /* the least round trip: a way's up and down together need no slope */
    int first = ts_rings_ways_from(r, since);
    if (r->nways - first < TS_TUNING.ways_min)
        first = 0;
    while (r->nways - first > TS_TUNING.ways_min && ts_rings_local(r, ts_rings_way(r, first)->local) < d->bend_since)
        first++;   /* before a bend */
    for (int i = first; i < r->nways; i++) {
        const ts_way_t *w = ts_rings_way(r, i);
        double along = slope * (double) (ref - ts_rings_local(r, w->local));
        ts_fit_keep_least(ups, &nup, w->up + along);
        ts_fit_keep_least(downs, &ndown, w->down - along);
        trip = w->up + w->down < trip ? w->up + w->down : trip;   /* (fmin is a call into libm) */
    }
    double up = ups[0] + r->origin_offset, down = downs[0] - r->origin_offset;
    double f = l->up_fraction;
    l->fit_local = ref;
    l->fit_offset = (1 - f) * up - f * down;
    l->fitted = true;
    l->edge_up = up;
    l->edge_down = down;
    l->edge_local = ref;
    l->edge_slope = slope;
    l->gap_up = ts_fit_spacing(ups, nup);
    l->gap_down = ts_fit_spacing(downs, ndown);
    l->edge_span = ref - ts_rings_local(r, ts_rings_way(r, first)->local);
    l->trip_least = trip;
    l->trip_over = trip - (ups[0] + downs[0]);
    l->trip_scale = sqrt((double) (r->nways - first) * ts_fit_median_gap(ups, nup) * ts_fit_median_gap(downs, ndown));
    l->edges = true;
}

void ts_level_update(ts_level_t *l, const ts_rings_t *r, const ts_drift_t *d, int64_t since)
{
    if (r->nways >= TS_TUNING.ways_min) {
        from_ways(l, r, d, since);
    } else if (r->npoints >= TS_TUNING.fit_points) {
        /* the points' weighted mean averages the asymmetric part of
         * near-best samples' jitter away */
        int64_t lo, hi;
        ts_fit_line_t line;
        ts_drift_points_line(r, &lo, &hi, &line);
        l->fit_local = lo + (int64_t) llround(line.mean_t);
        l->fit_offset = line.mean_y + r->origin_offset;
        l->fitted = true;
    } else {
        l->fitted = false;
    }
}

void ts_level_residuals(const ts_level_t *l, const ts_sample_t *s, double *r_up, double *r_down)
{
    double f = l->up_fraction, dt = (double) (s->local - l->edge_local);
    double up = s->offset + f * (double) s->delay, down = (1 - f) * (double) s->delay - s->offset;
    *r_up = up - (l->edge_up + l->edge_slope * dt);
    *r_down = down - (l->edge_down - l->edge_slope * dt);
}

double ts_level_error(const ts_level_t *l)
{
    double f = l->up_fraction;
    return TS_TUNING.expect_k * hypot((1 - f) * l->gap_up, f * l->gap_down);
}

/* A way's least of n measurements sits above its edge by about an
 * exponential's worth of queueing (the bottom of any density is flat at
 * the scale of 1 / n), whose mean the spacing of the least ones reads off
 * g = TS_FIT_EDGE_K - 1 gaps: what a next such least is, given that
 * reading, is a Lomax, beyond x with chance T(x; m) = (1 + x / (g m))^-g. The level,
 * (1 - f) up - f down, is off by the difference of two, of means
 * a = (1 - f) gap_up and b = f gap_down, beyond x either way with chance
 * (a T(x; a) + b T(x; b)) / (a + b). x is where that is 5 %: from below it
 * (the larger term alone at 5 %), Newton's steps rise to it, the chance
 * being convex; six take it to a double's precision. With both ways alike, or one
 * clean, that is 4 (20^(1/4) - 1) = 4.46 times the larger way's share:
 * 3.2 times their hypot, where ts_level_error allows 5. test_level: the
 * edges' level within it in 378 of 400 draws of exponential queueing. */
double ts_level_error95(const ts_level_t *l)
{
    double f = l->up_fraction, a = (1 - f) * l->gap_up, b = f * l->gap_down;
    double hi = fmax(a, b), lo = fmin(a, b);
    _Static_assert(TS_FIT_EDGE_K == 5, "the spacing is read off g = 4 gaps: the powers below are 4th");
    double x = 4 * hi * (sqrt(sqrt(20 * hi / (a + b))) - 1);
    for (int i = 0; i < 6 && lo > 0; i++) {
        double phi = 1 / (1 + x / (4 * hi)), plo = 1 / (1 + x / (4 * lo));
        double th = phi * phi * phi * phi, tl = plo * plo * plo * plo;
        x += (hi * th + lo * tl - 0.05 * (a + b)) / (th * phi + tl * plo);
    }
    return x;
}

/* The least round trip sits above the edges' sum by the least queueing
 * that one sample met both ways at once, where each edge is its own way's
 * least. Near their edges the two ways' queueings are flat densities of
 * 1 / (n gap) each, their sum's density rises as x / (n² gap_up
 * gap_down), and the least of n such sums is a Rayleigh of scale
 * √(n gap_up gap_down). A server step of S between the samples that gave
 * the two edges puts their sum S below every round trip: edges that
 * straddle a step no test saw, which happens where the step came before
 * there were edges to test it against (the burst that starts a path).
 * Each gap is read there as the median of the 4 between a way's 5 least
 * (trip_scale): with the lowered way's least from before the step and
 * the rest after, one of them is the step, and their mean read the scale
 * 7 times wider for one sample before a 25 ms step (test_level). */
bool ts_level_in_doubt(const ts_level_t *l, double server_step_us)
{
    return l->edges && l->trip_over > server_step_us;
}

bool ts_level_straddles(const ts_level_t *l, double server_step_us)
{
    return ts_level_in_doubt(l, server_step_us) && l->trip_over > TS_TUNING.straddle_z * l->trip_scale;
}

/* How far below an edge a sample at local must sit to be a server step:
 * the model's own error of the edges there (the level's, and the drift's
 * error over the time since the edges' reading, at freq_z; with the drift
 * unknown, any rate a clock may have), at least dev_floor_us (a
 * measurement's noise), at most server_step_us. */
double ts_level_step_limit(const ts_level_t *l, const ts_drift_t *d, int64_t local, double server_step_us)
{
    double se = ts_drift_error_or(d, TS_TUNING.max_freq);
    double model = ts_level_error(l) + TS_TUNING.freq_z * se * fabs((double) (local - l->edge_local));
    return fmin(server_step_us, fmax(model, TS_TUNING.dev_floor_us));
}

ts_edges_t ts_level_against(const ts_level_t *l, const ts_drift_t *d, const ts_sample_t *s, double server_step_us,
                            double *step, double *excess)
{
    if (!l->edges)
        return TS_EDGES_HELD;
    double r_up, r_down;
    ts_level_residuals(l, s, &r_up, &r_down);
    double limit = ts_level_step_limit(l, d, s->local, server_step_us);
    if (r_up + r_down < -limit)
        return TS_EDGES_SHORTER;
    if (fmin(r_up, r_down) >= -limit)
        return TS_EDGES_HELD;
    *step = (r_up - r_down) / 2;
    *excess = r_up + r_down;
    return TS_EDGES_STEPPED;
}
