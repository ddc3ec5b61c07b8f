/* scene/rate.c - see rate.h. */
#include "rate.h"

#include <stdlib.h>

void scene_rate_init(scene_rate_t *r, int64_t span_us)
{
    *r = (scene_rate_t) { .span_us = span_us, .bucket_us = span_us / 4 > 0 ? span_us / 4 : 1 };
}

void scene_rate_add(scene_rate_t *r, int64_t t1, int64_t t2)
{
    int64_t u = t2 - t1;
    if (r->n > 0 && llabs(u - r->u[r->newest]) > SCENE_RATE_JUMP_US)
        scene_rate_init(r, r->span_us);   /* another clock (a reconnect), not a rate */
    if (r->n == 0 || t2 - r->start >= r->bucket_us) {
        r->newest = (r->newest + (r->n > 0)) % SCENE_RATE_BUCKETS;
        if (r->n < SCENE_RATE_BUCKETS)
            r->n++;
        r->start = t2;
        r->t[r->newest] = t2;
        r->u[r->newest] = u;
    } else if (u < r->u[r->newest]) {
        r->t[r->newest] = t2;
        r->u[r->newest] = u;
    }
    int oldest = (r->newest - r->n + 1 + SCENE_RATE_BUCKETS) % SCENE_RATE_BUCKETS;
    int64_t dt = r->t[r->newest] - r->t[oldest];
    if (r->n >= 2 && dt >= r->span_us) {
        /* t1 = t2 - u: the client's clock runs at 1 - du/dt2 of the server's */
        r->ppm = -(double) (r->u[r->newest] - r->u[oldest]) / (double) dt * 1e6;
        r->known = true;
    }
}

bool scene_rate_known(const scene_rate_t *r) { return r->known; }
double scene_rate_ppm(const scene_rate_t *r) { return r->ppm; }
