/* lib/ticksync/step.c - see step.h. */
#include "step.h"

#include <math.h>

#include "tuning.h"

void ts_step_clear(ts_step_t *st)
{
    st->held = false;
    st->since = INT64_MIN;
}

/* Queueing only adds, so against the edges before the step, each way's
 * least residual is the step plus the least queueing up met (least_up)
 * and the least queueing down met less the step (least_down). The step
 * lies between the lowered way's reading and the raised way's; half-way
 * between, off by half the difference of the two least queueings, is the
 * estimate, each way's least of more samples the nearer its edge. It is
 * taken at most at twice the lowered way's reading, the least step the
 * samples prove: so taken, it never leaves the clock further off than not
 * taking it. Two samples below an edge are selected for little queueing
 * on the lowered way, not on the raised one, whose queueing the half-way
 * point takes as half of the step: a +1.7 ms step under Pareto queueing
 * was read as +10.8 ms, 9 ms off where not taking it was 1.7 (draw 11 of
 * seed 12345). */
double ts_step_estimate(double least_up, double least_down)
{
    double half_way = (least_up - least_down) / 2;
    double proven = half_way > 0 ? -least_down : -least_up;
    return copysign(fmin(fabs(half_way), 2 * fmax(proven, 0)), half_way);
}

/* How far a sample's reading of a step may be off: half its queueing
 * excess (a negative one counts as none), where the two ways' queueing
 * splits it the most unevenly. */
static double reading_error(double excess)
{
    return fmax(excess, 0) / 2;
}

double ts_step_agreement(double server_step_us, double excess_a, double excess_b)
{
    return server_step_us + reading_error(excess_a) + reading_error(excess_b);
}

bool ts_step_clear_of(double step, double excess, double limit)
{
    return fabs(step) - reading_error(excess) > TS_TUNING.clear_k * limit;
}

void ts_step_hold(ts_step_t *st, const ts_sample_t *s, double step, double excess, bool shorter, bool outlier,
                  double limit)
{
    st->held = true;
    st->held_shorter = shorter;
    st->held_outlier = outlier;
    st->held_sample = *s;
    st->held_step = step;
    st->held_excess = excess;
    st->held_limit = limit;
    st->held_waits = 0;
}

/* A step of S lowers one way's edge by S and raises the other's, so s,
 * queued past S on the way lowered, still sits S above the raised edge,
 * within the two readings' agreement. Only for a step clearly beyond what
 * the model's drift gives (the least it can be, its reading less half its
 * queueing, over clear_k step limits it was held at: a changing rate the
 * model lags crosses the limit one exchange at a time, so its reading is
 * the limit and what the error grew by since), and at most step_waits
 * times: such a sample is dropped and the next asked for at once, where
 * letting the held sample in as no step would leave the step untaken and
 * the level half of it off until the window forgets the old edge. A
 * sample whose raised way is not raised tells it was no step. Not for a
 * held outlier, which is never admitted: its reading is off by half its
 * round trip's excess, a spike's hundreds of ms, so it would drop samples
 * for nothing.
 *
 * A held shorter route waits the same way, through any sample within both
 * edges: a route shorter by R is shown only by a sample that queued less
 * than R on the way it shortened, and any other fits the old edges as well
 * as the new route with some queueing, so none tells it was no new route.
 * Letting the held sample in as none gave the shorter way its new edge at
 * once and left the longer way's on the old route for the ways' whole
 * window (the wider family's draw 43 of seed 4711: a route 7.2 ms shorter
 * up and 1.8 ms longer down, whose second sample queued 14 ms up; the
 * level sat 1-2 ms off for 35 s, until a later pair was read as a server
 * step). */
bool ts_step_still(const ts_step_t *st, const ts_level_t *l, const ts_sample_t *s, double server_step_us)
{
    if (st->held_waits >= TS_TUNING.step_waits)
        return false;
    if (st->held_shorter)
        return true;
    if (st->held_outlier || !ts_step_clear_of(st->held_step, st->held_excess, st->held_limit))
        return false;
    double agree = ts_step_agreement(server_step_us, st->held_excess, 0);
    double size = fabs(st->held_step);
    double r_up, r_down;
    ts_level_residuals(l, s, &r_up, &r_down);
    return (st->held_step > 0 ? r_up : r_down) >= size - agree;
}

void ts_step_start(ts_step_t *st, int64_t at, const ts_level_t *l)
{
    st->since = at;
    st->before = *l;
    st->least_up = st->least_down = INFINITY;
    st->stepped = 0;
    st->read_lo = -INFINITY;
    st->read_hi = INFINITY;
}

/* A sample reading the step as reading, over its queueing excess, puts it
 * within half that of the reading and server_step_us more: the window
 * where the step can be narrows to that. */
static void narrow(ts_step_t *st, double reading, double excess, double server_step_us)
{
    double half = reading_error(excess);
    st->read_lo = fmax(st->read_lo, reading - half - server_step_us);
    st->read_hi = fmin(st->read_hi, reading + half + server_step_us);
}

/* Each sample read puts the step within half its queueing of its own
 * reading, and the model's error within server_step_us: the two first
 * (ts_step_settle) and every one since that was read. A sample that would
 * move the reading out of where they all put it reads something else: a
 * second step, or a new route, which the tests against the edges tell.
 * Taken as this one's error, a +171 ms step 8 s after a -1 ms one moved
 * the history before the first by half of it (the failover draw 17 of
 * seed 4242), and the points' line read that as -1,000 ppm. Until
 * 2026-12-01 a reading again could move as far as the two agreed within,
 * the sum of their halves, where each confines the step to its own half:
 * a route change read as a +3 ms step, whose second sample had queued
 * 10.6 ms, took half of a -16 ms server step 2 s after it as its own
 * error, and the level sat 8 ms off for 74.8 s (the failover draw 197 of
 * seed 1203; 1.0 s now). Until 2026-12-02 only the two first samples set
 * where: a route read as a +13 ms step, its two samples queued 26 and 21
 * ms, took -11.9 ms of a -26 ms step 3 s later as its own error (a
 * reading of 5.8 ms, where a sample between, queued 12 ms, put the step
 * at 8 ms or more); the real step was then too vague to wait for, and the
 * way down's edge sat 26 ms off for 185 s (the failover draw 10 of seed
 * 1501; 0.5 s now). */
bool ts_step_read(ts_step_t *st, const ts_sample_t *s, double min_span_us, double server_step_us, double *move)
{
    if (st->since == INT64_MIN || (double) (s->local - st->since) >= min_span_us)
        return false;
    double r_up, r_down;
    ts_level_residuals(&st->before, s, &r_up, &r_down);
    double least_up = fmin(st->least_up, r_up), least_down = fmin(st->least_down, r_down);
    double step = ts_step_estimate(least_up, least_down);
    if (step < st->read_lo || step > st->read_hi)
        return false;
    st->least_up = least_up;
    st->least_down = least_down;
    if (isfinite(st->read_lo))   /* (the two first are read before they settle it) */
        narrow(st, (r_up - r_down) / 2, r_up + r_down, server_step_us);
    if (step == st->stepped)
        return false;
    *move = step - st->stepped;
    st->stepped = step;
    return true;
}

void ts_step_settle(ts_step_t *st, double server_step_us, double step_a, double excess_a, double step_b,
                    double excess_b)
{
    narrow(st, step_a, excess_a, server_step_us);
    narrow(st, step_b, excess_b, server_step_us);
}

/* The first ways came before there were edges to test them against, so
 * once as many ways after them give edges of their own, they are tested
 * against those as every later sample is, and two in a row below one of
 * those edges by about the same amount are a step in the burst that
 * starts the path. The edges formed from both sides of it straddle it,
 * and where heavy queueing puts the least round trip far above the edges'
 * sum anyway, ts_level_straddles cannot tell (a +23 ms step under
 * log-normal queueing of a 7.8 ms median stayed half taken for 221.5 s,
 * the failover draw 78 of seed 4242). Edges of a few ways are rough, and
 * with no drift yet they stand on none: only a clear step counts, its
 * least size over clear_k step limits, as for a step that waits
 * (ts_step_still). Under bimodal queueing the clock's first ways read a
 * false 4-6 ms step against the next few (the draw 109 of 9001 --wide:
 * 0.31 -> 0.59 ms), which that leaves. */
bool ts_step_in_first_ways(const ts_step_t *st, const ts_rings_t *r, const ts_level_t *l, const ts_drift_t *d,
                           double up_fraction, double server_step_us)
{
    int n = TS_TUNING.ways_min;
    if (st->since != INT64_MIN || r->nways != 2 * n)
        return false;
    ts_level_t later = *l;
    ts_level_update(&later, r, d, ts_rings_local(r, ts_rings_way(r, n)->local));
    double held_step = 0, held_excess = 0;
    bool held = false;
    for (int i = 0; i < n; i++) {
        const ts_way_t *w = ts_rings_way(r, i);
        double delay = (double) w->up + (double) w->down, step = 0, excess = 0;
        ts_sample_t s = { .local = ts_rings_local(r, w->local),
                          .offset = (double) w->up - up_fraction * delay + r->origin_offset,
                          .delay = (int64_t) llround(delay) };
        if (ts_level_against(&later, d, &s, server_step_us, &step, &excess) != TS_EDGES_STEPPED
            || !ts_step_clear_of(step, excess, ts_level_step_limit(&later, d, s.local, server_step_us))) {
            held = false;
            continue;
        }
        if (held && fabs(step - held_step) <= ts_step_agreement(server_step_us, excess, held_excess))
            return true;
        held = true;
        held_step = step;
        held_excess = excess;
    }
    return false;
}

bool ts_step_first_ways_doubtful(const ts_step_t *st, const ts_rings_t *r, const ts_level_t *l,
                                 double server_step_us)
{
    return st->since == INT64_MIN && r->nways < 2 * TS_TUNING.ways_min && ts_level_in_doubt(l, server_step_us);
}
