/* lib/ticksync/fit.c - see fit.h. */
#include "fit.h"

#include <math.h>
#include <stdlib.h>

/* The slope of the lower convex hull of the points (t[i], y[i]), given in
 * time order, between a quarter and three quarters of their span: the
 * chord of their lower edge. Queueing only ever adds delay, so a way's
 * lower edge is its fixed delay plus the clocks' drift, and how heavy the
 * tail above it is does not matter (the lower edge is Moon, Skelly and
 * Towsley's skew estimator, 1999; a chord over half the span, rather than
 * their one edge at the middle, keeps two close points from setting it). */
double ts_fit_hull_chord(const double *t, const double *y, int n)
{
    int hull[TS_FIT_MAX], h = 0;
    for (int i = 0; i < n; i++) {
        /* the last hull point goes while it is not below the chord to i */
        while (h >= 2) {
            int a = hull[h - 2], b = hull[h - 1];
            if ((y[b] - y[a]) * (t[i] - t[a]) < (y[i] - y[a]) * (t[b] - t[a]))
                break;
            h--;
        }
        hull[h++] = i;
    }
    double at[2] = { t[0] + (t[n - 1] - t[0]) / 4, t[0] + (t[n - 1] - t[0]) * 3 / 4 }, on[2] = { 0, 0 };
    for (int k = 0; k + 1 < h && t[hull[k]] <= at[1]; k++) {   /* the segments up to the second point */
        int a = hull[k], b = hull[k + 1];
        for (int j = 0; j < 2; j++)
            if (t[a] <= at[j] && at[j] <= t[b] && t[a] < t[b])
                on[j] = y[a] + (y[b] - y[a]) * (at[j] - t[a]) / (t[b] - t[a]);
    }
    return (on[1] - on[0]) / (at[1] - at[0]);
}

/* Keeps the TS_FIT_EDGE_K least of the values offered, sorted, in least[0..*k). */
void ts_fit_keep_least(double *least, int *k, double r)
{
    if (*k == TS_FIT_EDGE_K && r >= least[TS_FIT_EDGE_K - 1])
        return;
    int j = *k < TS_FIT_EDGE_K ? (*k)++ : TS_FIT_EDGE_K - 1;
    for (; j > 0 && least[j - 1] > r; j--)
        least[j] = least[j - 1];
    least[j] = r;
}

/* The mean gap between the TS_FIT_EDGE_K least values: the spacing of the order
 * statistics at the bottom, 1 / (n x the density there), which is also
 * about how far the least sits above the true edge. */
double ts_fit_spacing(const double *least, int k)
{
    return k > 1 ? fmax((least[k - 1] - least[0]) / (k - 1), 1) : INFINITY;
}

/* How far above its lower edge a way's measurements sit near it: the
 * spacing of its least residuals from a line of the given slope. */
double ts_fit_edge_noise(const double *t, const double *y, int n, double slope)
{
    double least[TS_FIT_EDGE_K];
    int k = 0;
    for (int i = 0; i < n; i++)
        ts_fit_keep_least(least, &k, y[i] - slope * t[i]);
    return ts_fit_spacing(least, k);
}

/* The k-th least of v[0..n) (v is reordered), by Hoare's selection: the
 * value sorting would put at k, without sorting. */
static double kth_least(double *v, int n, int k)
{
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        double pivot = v[lo + (hi - lo) / 2];
        int i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot)
                i++;
            while (v[j] > pivot)
                j--;
            if (i <= j) {
                double x = v[i];
                v[i++] = v[j];
                v[j--] = x;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return v[k];
    }
    return v[k];
}

/* How far a way's measurements typically sit above its lower edge: their
 * median residual from a line of the given slope, over the least. Steady
 * from a few dozen measurements on, where the spacing at the bottom is not:
 * it tells a way that queues (a congested uplink) from one that does not. */
double ts_fit_spread(const double *t, const double *y, int n, double slope)
{
    double r[TS_FIT_MAX];
    if (n < 1)
        return 0;
    double least = INFINITY;
    for (int i = 0; i < n; i++) {
        r[i] = y[i] - slope * t[i];
        least = r[i] < least ? r[i] : least;
    }
    return kth_least(r, n, n / 2) - least;
}

/* The chord of one way's points (t[i], y[i]), hull_chord_slope, and in
 * *err its error: the chord's ends can sit above the true edge by about
 * the spacing of the way's least measurements, half the span apart. */
double ts_fit_chord(const double *t, const double *y, int n, double *err)
{
    double s = ts_fit_hull_chord(t, y, n), half = (t[n - 1] - t[0]) / 2;
    *err = half > 0 ? M_SQRT2 * ts_fit_edge_noise(t, y, n, s) / half : INFINITY;
    return s;
}

/* Two alike ways' drift's error: their chords' own, or how far the two
 * ways' drifts are apart if more. */
double ts_fit_alike_error(double su, double eu, double sd, double ed)
{
    return fmax(hypot(eu, ed) / 2, fabs(su + sd) / 2);
}

/* Index of the first of the n sorted values not less than v. */
int ts_fit_lower_bound(const double *sorted, int n, double v)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (sorted[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

