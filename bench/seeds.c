/* bench/seeds.c - see seeds.h. */
#include "seeds.h"

#include <math.h>
#include <string.h>

#define S0_MAX_VALID_RTT  500000   /* MAX_VALID_RTT = 500 ms */
#define S0_RATE           0.33     /* APPROXIMATING_RATE */
#define S2_COEF           1.0      /* coefDownUpSpeed */
#define S3_ALPHA          0.1
#define MIRROR_WINDOW         50       /* PingWindowSize */

void seed_init(seed_t *s, seed_kind_t kind)
{
    memset(s, 0, sizeof *s);
    s->kind = kind;
    s->latest_rtt = INT64_MAX;
    s->offset_min = -INFINITY;
    s->offset_max = INFINITY;
}

const char *seed_name(seed_kind_t kind)
{
    static const char *const names[] = { "S0 unreal", "S1 blaster", "S2 esframework", "S3 smoothed", "Mirror" };
    return kind < SEEDS ? names[kind] : "?";
}

/* S0: CalculateApproximatingDeltaTime. */
static double s0_approach(const seed_t *s, int64_t elapsed)
{
    double els = (double) elapsed * S0_RATE;
    if (els >= fabs(s->delta))
        return 0;
    return s->delta < 0 ? ceil(s->delta + els) : ceil(s->delta - els);
}

static double s0_now(const seed_t *s, int64_t now)
{
    if (!s->synced)
        return 0;
    int64_t elapsed = now - s->client_time > 0 ? now - s->client_time : 0;
    return s->estimated + (double) elapsed + s0_approach(s, elapsed);
}

static void ema(double *value, int *n, double x)
{
    double alpha = 2.0 / (MIRROR_WINDOW + 1);
    *value = (*n)++ == 0 ? x : *value + alpha * (x - *value);
}

void seed_sample(seed_t *s, int64_t t1, int64_t t2, int64_t t3, int64_t t4)
{
    double rtt = (double) (t4 - t1);
    switch (s->kind) {
    case SEED_S0: {
        int64_t r = t4 - t1;
        if (r > S0_MAX_VALID_RTT || r > s->latest_rtt)
            return;
        double last = s0_now(s, t4);
        s->client_time = t4;
        s->estimated = (double) t2 + (double) (r / 2);
        s->latest_rtt = r;
        s->delta = s->synced ? last - s->estimated : 0;
        s->synced = true;
        return;
    }
    case SEED_S1:
        s->offset = (double) t2 + 0.5 * rtt - (double) t4;
        break;
    case SEED_S2: {
        double down = rtt / (S2_COEF + 1);
        s->offset = (double) t2 - ((double) t4 - down);
        break;
    }
    case SEED_S3:
        if (!s->synced) {
            s->one_way = rtt / 2;
            s->offset = (double) t3 + s->one_way - (double) t4;
        } else {
            double observed = ((double) t3 + s->one_way) - ((double) t4 + s->offset);
            s->offset += S3_ALPHA * observed;
        }
        break;
    case SEED_MIRROR: {
        /* Mirror keeps local - server; here server - local, so the bounds flip */
        ema(&s->ema_rtt, &s->rtt_n, rtt);
        double fresh = (double) t2 + 0.5 * rtt - (double) t4;
        double lo = (double) t2 - (double) t4, hi = (double) t2 + rtt - (double) t4;
        s->offset_min = lo > s->offset_min ? lo : s->offset_min;
        s->offset_max = hi < s->offset_max ? hi : s->offset_max;
        if (s->offset_n > 0 && (s->ema_offset < s->offset_min || s->ema_offset > s->offset_max))
            s->offset_n = 0;   /* out of the bounds: start the average over */
        ema(&s->ema_offset, &s->offset_n, fresh);
        s->offset = s->ema_offset;
        break;
    }
    default:
        return;
    }
    s->synced = true;
}

double seed_now(const seed_t *s, int64_t now)
{
    if (!s->synced)
        return 0;
    return s->kind == SEED_S0 ? s0_now(s, now) : (double) now + s->offset;
}
