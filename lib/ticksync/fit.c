/* lib/ticksync/fit.c - see fit.h. */
#include "fit.h"

#include <math.h>
#include <stdlib.h>

#include "tuning.h"

/* Andrew's monotone chain, lower half, over the points idx[0..n) (time
 * order; idx NULL: lo, lo + 1, ...) into hull: a point goes on, and the
 * last hull point goes while it is not below the chord to the new one.
 * The hull's points are kept beside their indices (ht, hy), so the test
 * reads them without going through idx. */
static void chain(const double *t, const double *y, const int *idx, int lo, int n, ts_fit_hull_t *hull)
{
    double ht[TS_FIT_MAX], hy[TS_FIT_MAX];
    int h = 0;
    for (int k = 0; k < n; k++) {
        int i = idx ? idx[k] : lo + k;
        double ti = t[i], yi = y[i];
        while (h >= 2 && !((hy[h - 1] - hy[h - 2]) * (ti - ht[h - 2]) < (yi - hy[h - 2]) * (ht[h - 1] - ht[h - 2])))
            h--;
        ht[h] = ti;
        hy[h] = yi;
        hull->idx[h++] = i;
    }
    hull->n = h;
}

void ts_fit_hull(const double *t, const double *y, int lo, int hi, ts_fit_hull_t *hull)
{
    chain(t, y, NULL, lo, hi - lo, hull);
}

/* Every point of the union's hull is on a's or on b's. */
void ts_fit_hull_join(const double *t, const double *y, const ts_fit_hull_t *a, const ts_fit_hull_t *b,
                      ts_fit_hull_t *out)
{
    int idx[TS_FIT_MAX];
    for (int k = 0; k < a->n; k++)
        idx[k] = a->idx[k];
    for (int k = 0; k < b->n; k++)
        idx[a->n + k] = b->idx[k];
    chain(t, y, idx, 0, a->n + b->n, out);
}

/* The slope of the lower hull between TS_TUNING.chord_at of its span and
 * one less that (a quarter and three quarters): the chord of the lower
 * edge. Queueing only ever adds delay, so a
 * way's lower edge is its fixed delay plus the clocks' drift, and how heavy
 * the tail above it is does not matter (the lower edge is Moon, Skelly and
 * Towsley's skew estimator, 1999; a chord over half the span, rather than
 * their one edge at the middle, keeps two close points from setting it).
 * The hull's ends are the points' first and last. */
double ts_fit_hull_slope(const double *t, const double *y, const ts_fit_hull_t *hull)
{
    const int *v = hull->idx;
    int h = hull->n;
    double t0 = t[v[0]], t1 = t[v[h - 1]];
    double c = TS_TUNING.chord_at, at[2] = { t0 + (t1 - t0) * c, t0 + (t1 - t0) * (1 - c) }, on[2] = { 0, 0 };
    for (int k = 0; k + 1 < h && t[v[k]] <= at[1]; k++) {   /* the segments up to the second point */
        int a = v[k], b = v[k + 1];
        for (int j = 0; j < 2; j++)
            if (t[a] <= at[j] && at[j] <= t[b] && t[a] < t[b])
                on[j] = y[a] + (y[b] - y[a]) * (at[j] - t[a]) / (t[b] - t[a]);
    }
    return (on[1] - on[0]) / (at[1] - at[0]);
}

/* The mean gap between the TS_FIT_EDGE_K least values: the spacing of the order
 * statistics at the bottom, 1 / (n x the density there), which is also
 * about how far the least sits above the true edge. */
double ts_fit_spacing(const double *least, int k)
{
    return k > 1 ? fmax((least[k - 1] - least[0]) / (k - 1), 1) : INFINITY;
}

/* The median gap between the k least values (fit.h), the k - 1 gaps
 * sorted by insertion as they are read. */
double ts_fit_median_gap(const double *least, int k)
{
    double gap[TS_FIT_EDGE_K];
    int n = 0;
    for (int i = 1; i < k; i++) {
        double g = least[i] - least[i - 1];
        int j = n++;
        for (; j > 0 && gap[j - 1] > g; j--)
            gap[j] = gap[j - 1];
        gap[j] = g;
    }
    return n > 0 ? fmax((gap[(n - 1) / 2] + gap[n / 2]) / 2, 1) : INFINITY;
}

/* The k-th least of v[0..n) (v is reordered): the value sorting would put
 * at k, without sorting. Quickselect, each round's pivot the median of its
 * first, middle and last, partitioned without a branch on the values
 * (Lomuto's scheme with the swap made whatever the comparison says): the
 * residuals come in no order, so a branch on each would be mispredicted
 * half the time. */
static double kth_least(double *v, int n, int k)
{
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        double a = v[lo], b = v[mid], c = v[hi];
        int p = a < b ? (b < c ? mid : a < c ? hi : lo) : (a < c ? lo : b < c ? hi : mid);
        double pivot = v[p];
        v[p] = v[hi];
        v[hi] = pivot;
        int store = lo;
        for (int i = lo; i < hi; i++) {
            double x = v[i];
            v[i] = v[store];
            v[store] = x;
            store += x < pivot;
        }
        v[hi] = v[store];
        v[store] = pivot;
        if (k == store)
            return pivot;
        if (k < store)
            hi = store - 1;
        else
            lo = store + 1;
    }
    return v[k];
}

/* The points' residuals from a line of slope: the spacing of their
 * TS_FIT_EDGE_K least, how far above its lower edge a way's measurements
 * sit near it; and where spread is wanted (not NULL), their median over
 * the least, how far they typically sit above it (steady from a few dozen
 * measurements on, where the spacing at the bottom is not: it tells a way
 * that queues, a congested uplink, from one that does not). One pass
 * gives both, as the drift wants both of one chord. */
double ts_fit_residuals(const double *t, const double *y, int n, double slope, double *spread)
{
    double least[TS_FIT_EDGE_K], r[TS_FIT_MAX];
    int k = 0;
    for (int i = 0; i < n; i++) {
        r[i] = y[i] - slope * t[i];
        ts_fit_keep_least(least, &k, r[i]);
    }
    if (spread)
        *spread = n > 0 ? kth_least(r, n, n / 2) - least[0] : 0;
    return ts_fit_spacing(least, k);
}

/* The chord of one way's points (t[i], y[i]), and in *err its error: the
 * chord's ends can sit above the true edge by about the spacing of the
 * way's least measurements, 1 - 2 chord_at of the span apart. */
double ts_fit_chord_of(const double *t, const double *y, int lo, int hi, const ts_fit_hull_t *hull, double *err,
                       double *spread)
{
    double s = ts_fit_hull_slope(t, y, hull), apart = (t[hi - 1] - t[lo]) * (1 - 2 * TS_TUNING.chord_at);
    double noise = ts_fit_residuals(t + lo, y + lo, hi - lo, s, spread);
    *err = apart > 0 ? M_SQRT2 * noise / apart : INFINITY;
    return s;
}

double ts_fit_halves(const double *t, const double *up, const double *down, int lo, int mid, int hi,
                     const ts_fit_hull_t *const hulls[4], double *older, double *newer)
{
    double e[4];
    *older = (ts_fit_chord_of(t, up, lo, mid, hulls[0], &e[0], NULL)
              - ts_fit_chord_of(t, down, lo, mid, hulls[1], &e[1], NULL)) / 2;
    *newer = (ts_fit_chord_of(t, up, mid, hi, hulls[2], &e[2], NULL)
              - ts_fit_chord_of(t, down, mid, hi, hulls[3], &e[3], NULL)) / 2;
    return hypot(hypot(e[0], e[1]), hypot(e[2], e[3])) / 2;
}

double ts_fit_turn_error(const double *t, const double *up, const double *down, int q1, int q3,
                         const ts_fit_hull_t *mid_up, const ts_fit_hull_t *mid_down, double halves_se)
{
    double eu, ed;
    ts_fit_chord_of(t, up, q1, q3, mid_up, &eu, NULL);
    ts_fit_chord_of(t, down, q1, q3, mid_down, &ed, NULL);
    return hypot(hypot(eu, ed) / 2, halves_se / 2);
}

double ts_fit_chord(const double *t, const double *y, int n, double *err, double *spread)
{
    ts_fit_hull_t hull;
    ts_fit_hull(t, y, 0, n, &hull);
    return ts_fit_chord_of(t, y, 0, n, &hull, err, spread);
}

/* Two alike ways' drift's error: their chords' own, or how far the two
 * ways' drifts are apart if more. */
double ts_fit_alike_error(double su, double eu, double sd, double ed)
{
    return fmax(hypot(eu, ed) / 2, fabs(su + sd) / 2);
}

/* Three passes (n >= 1): the weighted means; the weighted sums of dt²
 * and dt·dy about them (dt = t[i] - mean_t), whose ratio is the slope;
 * the weighted residuals, for its error. */
bool ts_fit_line(const double *t, const double *y, const double *w, int n, ts_fit_line_t *line)
{
    double sw = 0, st = 0, sy = 0;
    for (int i = 0; i < n; i++) {
        double wi = w ? w[i] : 1;
        sw += wi;
        st += wi * t[i];
        sy += wi * y[i];
    }
    double mt = st / sw, my = sy / sw, stt = 0, sty = 0;
    for (int i = 0; i < n; i++) {
        double wi = w ? w[i] : 1, dt = t[i] - mt;
        stt += wi * dt * dt;
        sty += wi * dt * (y[i] - my);
    }
    *line = (ts_fit_line_t) { .mean_t = mt, .mean_y = my };
    if (!(stt > 0))
        return false;
    double slope = sty / stt, rss = 0;
    for (int i = 0; i < n; i++) {
        double e = y[i] - my - slope * (t[i] - mt);
        rss += (w ? w[i] : 1) * e * e;
    }
    line->slope = slope;
    line->se = n > 2 ? sqrt(rss / (n - 2) / stt) : INFINITY;
    return true;
}

bool ts_fit_too_few_runs(const double *t, const double *y, int n, double z)
{
    if (n < 8)
        return false;
    ts_fit_line_t line;
    ts_fit_line(t, y, NULL, n, &line);
    int pos = 0, runs = 0;
    bool last = false;
    for (int i = 0; i < n; i++) {
        bool above = y[i] - line.mean_y - line.slope * (t[i] - line.mean_t) > 0;
        pos += above;
        runs += i == 0 || above != last;
        last = above;
    }
    double n1 = pos, n2 = n - pos;
    if (n1 == 0 || n2 == 0)
        return false;   /* residuals sum to 0: none above means all on the line */
    double mean = 2 * n1 * n2 / n + 1, var = (mean - 1) * (mean - 2) / (n - 1);
    return runs < mean - z * sqrt(var);
}

double ts_fit_binomial_tail(int n, double p, int k)
{
    if (k <= 0 || p >= 1)
        return k <= n ? 1 : 0;
    if (k > n || p <= 0)
        return 0;
    double choose = 1;   /* C(n, k), exact in a double up to n of 60 or so, and close beyond */
    for (int i = 0; i < k; i++)
        choose = choose * (n - i) / (i + 1);
    double term = choose, sum = 0;   /* C(n, k) p^k (1 - p)^(n - k), by products: no pow in the wasm module */
    for (int i = 0; i < n; i++)
        term *= i < k ? p : 1 - p;
    for (int i = k; i <= n; i++) {
        sum += term;
        term *= (double) (n - i) / (i + 1) * p / (1 - p);
    }
    return fmin(sum, 1);
}
