/* lib/ticksync/fit.h - the estimator's numerics, on arrays: lower edges,
 * their chords and noise, a way's spread, order statistics, the runs
 * test. No ticksync_t and no state, so each is tested on arrays of points
 * (tests/test_fit.c), as chrony keeps regress.c apart from a source's
 * samples (sourcestats.c).
 *
 * A "way" is one direction's one-way measurements (t[i], y[i]), in time
 * order: its fixed delay plus the clocks' offset, plus queueing, which only
 * ever adds. Its lower edge is where it would sit with no queueing. */
#ifndef TICKSYNC_FIT_H
#define TICKSYNC_FIT_H

#include <stdbool.h>

#define TS_FIT_MAX    192   /* most points one call takes */
#define TS_FIT_EDGE_K 5     /* least residuals whose spacing is an edge's noise */

/* A way's lower convex hull: indices of its points, in time order. */
typedef struct {
    int idx[TS_FIT_MAX];
    int n;
} ts_fit_hull_t;

/* The lower hull of the points [lo, hi), at most TS_FIT_MAX of them. */
void ts_fit_hull(const double *t, const double *y, int lo, int hi, ts_fit_hull_t *hull);
/* The lower hull of the points of two hulls over the same arrays, a's all
 * before b's in time: the hull of the two sets' union, from their hulls
 * alone. */
void ts_fit_hull_join(const double *t, const double *y, const ts_fit_hull_t *a, const ts_fit_hull_t *b,
                      ts_fit_hull_t *out);
/* The slope of a lower hull between a quarter and three quarters of its
 * span: the chord of the lower edge. */
double ts_fit_hull_slope(const double *t, const double *y, const ts_fit_hull_t *hull);
/* The chord of the points [0, n), and in *err its error: the chord's ends
 * sit above the true edge by about the spacing of the least residuals,
 * 1 - 2 TS_TUNING.chord_at of the span apart; in *spread (unless NULL)
 * their spread from the chord, read off the same residuals
 * (ts_fit_residuals). _of: of the points [lo, hi), whose hull is given. */
double ts_fit_chord(const double *t, const double *y, int n, double *err, double *spread);
double ts_fit_chord_of(const double *t, const double *y, int lo, int hi, const ts_fit_hull_t *hull, double *err,
                       double *spread);
/* Two ways' drift (the way up's chord less the way down's, halved) over
 * the older half [lo, mid) and the newer half [mid, hi), from their hulls
 * (up older, down older, up newer, down newer): *older, *newer, and the
 * standard error of newer - older as their chords' errors state it. On a
 * steady edge |newer - older| / error has the same tail whatever the
 * queueing's shape (test_fit): the bend test reads it. */
double ts_fit_halves(const double *t, const double *up, const double *down, int lo, int mid, int hi,
                     const ts_fit_hull_t *const hulls[4], double *older, double *newer);
/* The error of a turn read off a window's middle half [q1, q3) (its
 * hulls, up and down) against its halves, whose drifts' difference has
 * the error halves_se: the middle's drift's error and half the halves'
 * together. The turn test holds twice the middle's drift less the
 * halves' mean against it. */
double ts_fit_turn_error(const double *t, const double *up, const double *down, int q1, int q3,
                         const ts_fit_hull_t *mid_up, const ts_fit_hull_t *mid_down, double halves_se);
/* The points' residuals from a line of slope: how far above it their
 * least sit, the spacing of the TS_FIT_EDGE_K least (ts_fit_spacing),
 * returned; and in *spread (unless NULL) how far they typically sit above
 * their edge, the median residual over the least (0 for no points). */
double ts_fit_residuals(const double *t, const double *y, int n, double slope, double *spread);
/* Two alike ways' drift's error, from each way's chord (su, sd: the way
 * down's chord has the offset with the other sign) and error: their
 * chords' own, or how far the two disagree if more. */
double ts_fit_alike_error(double su, double eu, double sd, double ed);

/* The least-squares line through the points, each weighed by w[i] (w
 * NULL: all alike): y = mean_y + slope (t - mean_t). se is the slope's
 * standard error, from the weighted residuals (INFINITY for 2 points or
 * fewer). False, with slope and se 0, where the points' times are all
 * one. */
typedef struct {
    double mean_t, mean_y, slope, se;
} ts_fit_line_t;

bool ts_fit_line(const double *t, const double *y, const double *w, int n, ts_fit_line_t *line);

/* The runs test (Wald and Wolfowitz, as chrony's regress.c chooses its
 * window with it): whether the signs of the points' residuals from their
 * least-squares line come in fewer runs than chance allows, z standard
 * deviations below the number expected. A line through noise leaves signs
 * that alternate at random; a line through a curve (a rate that changed,
 * even one whose halves have the same slope, as a sinusoid's over about a
 * period) leaves long runs. False for fewer than 8 points. */
bool ts_fit_too_few_runs(const double *t, const double *y, int n, double z);

/* The chance that n trials, each passing by chance p, pass k or more
 * times: the binomial law's upper tail. */
double ts_fit_binomial_tail(int n, double p, int k);

/* Keeps the TS_FIT_EDGE_K least of the values offered, sorted, in
 * least[0..*k). Inline: it runs for every point of every window. */
static inline void ts_fit_keep_least(double *least, int *k, double r)
{
    if (*k == TS_FIT_EDGE_K && r >= least[TS_FIT_EDGE_K - 1])
        return;
    int j = *k < TS_FIT_EDGE_K ? (*k)++ : TS_FIT_EDGE_K - 1;
    for (; j > 0 && least[j - 1] > r; j--)
        least[j] = least[j - 1];
    least[j] = r;
}
/* The mean gap between the k least values (at least 1), INFINITY below 2:
 * the spacing of the order statistics at the bottom, 1 / (n × the density
 * there), about how far the least sits above the true edge. */
double ts_fit_spacing(const double *least, int k);
/* The median gap between the k least values (at least 1), INFINITY below
 * 2: a spacing that one wide gap (one that spans a server step) does not
 * move. */
double ts_fit_median_gap(const double *least, int k);

#endif
