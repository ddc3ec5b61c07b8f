/* scene/rate.h - a player's clock rate against the server's, from the
 * client's own stamp in each SYNC (t1) and the gate's real-time arrival
 * stamp (t2). Queueing only delays a SYNC, so the lower edge of t2 - t1
 * over time moves only with the two clocks' rates: the estimate is the
 * chord between the least t2 - t1 of the oldest and the newest of a few
 * buckets, robust to any queueing above that edge. A speed hack (the
 * client's clock running 5% fast) shows as tens of thousands of ppm; a
 * cheap crystal as tens.
 *
 * A value type, embedded in each player (128 bytes), no allocation. */
#ifndef SCENE_RATE_H
#define SCENE_RATE_H

#include <stdbool.h>
#include <stdint.h>

#define SCENE_RATE_BUCKETS 8
#define SCENE_RATE_JUMP_US 1000000   /* t2 - t1 moving more than this is a new client clock: start over */

typedef struct {
    int64_t span_us, bucket_us;      /* the estimate needs minima span_us apart; buckets are a quarter */
    int64_t t[SCENE_RATE_BUCKETS];   /* per bucket: the gate's time of its least t2 - t1, and that least */
    int64_t u[SCENE_RATE_BUCKETS];
    int64_t start;                   /* the newest bucket's first t2 */
    int     n, newest;
    bool    known;
    double  ppm;                     /* + when the client's clock runs fast */
} scene_rate_t;

void scene_rate_init(scene_rate_t *r, int64_t span_us);
/* A SYNC: the client's t1 and the gate's real-time t2. */
void scene_rate_add(scene_rate_t *r, int64_t t1, int64_t t2);
/* False until the minima span span_us. */
bool   scene_rate_known(const scene_rate_t *r);
double scene_rate_ppm(const scene_rate_t *r);

#endif
