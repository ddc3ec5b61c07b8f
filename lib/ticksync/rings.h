/* lib/ticksync/rings.h - what the estimator keeps of its accepted samples,
 * for the drift and the level: three rings of 32-bit figures against a
 * moving origin. A value type the estimator embeds (as samples.h's filter).
 *
 * - points: samples near the filter's least delay (offset and delay), for
 *   the points' line, the drift before the ways give it;
 * - ways: every accepted sample's two one-way measurements, the offset
 *   inside each: up = t2 - t1 (offset + the way up), down = t4 - t3 (the
 *   way down - offset); each way's lower edge gives the level and, over a
 *   window, the drift;
 * - blocks: each way's least measurement of every TS_RINGS_BLOCK ways (the
 *   long history, 1,024 samples), for a drift that does not change.
 *
 * A time is µs from origin_local (int32), an offset a float from
 * origin_offset: the server's time against a monotonic clock is some
 * 1.7e15 µs, which a float holds to 134 s; from the origin what is left is
 * a delay and the drift since, held to a small fraction of a µs. The
 * origin is a history's first sample and moves on as samples come
 * (ts_rings_follow); a server step moves the offsets before it. At
 * least 54 minutes are kept: the long history at intervals up to 3 s. */
#ifndef TICKSYNC_RINGS_H
#define TICKSYNC_RINGS_H

#include <stdbool.h>
#include <stdint.h>

#include "samples.h"
#include "ticksync.h"   /* TICKSYNC_POINTS_MAX */

#define TS_RINGS_WAYS   192   /* accepted samples whose one-way measurements are kept */
#define TS_RINGS_BLOCK  8     /* accepted samples a block of the long history sums up */
#define TS_RINGS_BLOCKS 128   /* blocks kept: the long history, 1024 samples */

typedef struct {
    int32_t local;
    float   offset;
    int32_t delay;
} ts_point_t;

typedef struct {
    int32_t local;
    float   up, down;
} ts_way_t;

/* Each way's least measurement of a block (least once detrended by the
 * drift then known), with its time. */
typedef struct {
    int32_t t_up, t_down;
    float   up, down;
} ts_block_t;

typedef struct {
    int64_t    origin_local;   /* the rings' times are µs from this, */
    double     origin_offset;  /* and their offsets from this */
    ts_point_t points[TICKSYNC_POINTS_MAX];
    int        points_size, npoints, points_next;
    ts_way_t   ways[TS_RINGS_WAYS];
    int        nways, ways_next;
    ts_block_t blocks[TS_RINGS_BLOCKS];
    int        nblocks, blocks_next;
    ts_block_t open_block;     /* the block being filled, open_count ways so far */
    int        open_count;
} ts_rings_t;

/* Empty rings whose points ring holds points_size (3..TICKSYNC_POINTS_MAX). */
void ts_rings_init(ts_rings_t *r, int points_size);
/* Every ring empty (a new path); the blocks alone (a server step). */
void ts_rings_clear(ts_rings_t *r);
void ts_rings_clear_blocks(ts_rings_t *r);

/* Before a sample at (local, offset) joins: the first of a history sets
 * the origin; one 34 minutes after it moves it to 18 minutes before the
 * sample, and what is then over 36 minutes older than it is forgotten,
 * from each ring's oldest on. */
void ts_rings_follow(ts_rings_t *r, int64_t local, double offset);
/* The server's time stepped by step at local before: the points and ways
 * from before then move with it (and again as the step is read again;
 * the blocks start after it). */
void ts_rings_move_before(ts_rings_t *r, double step, int64_t before);

void ts_rings_add_point(ts_rings_t *r, const ts_sample_t *s);
/* s's two one-way measurements, split as up_fraction splits its delay,
 * join the ways and the open block (whose least is read along slope);
 * true when that closed a block. */
bool ts_rings_add_ways(ts_rings_t *r, const ts_sample_t *s, double up_fraction, double slope);

/* Of the ways, the index of the first at or after local since (nways
 * when none is). */
int ts_rings_ways_from(const ts_rings_t *r, int64_t since);

/* The place of the i-th oldest of the n entries of a ring of size whose
 * next write goes to next (i from 0 to n). No division: the points ring's
 * size is the game's drift_points, and a division by it for each point
 * read, some 160 a sample, cost more than the reads. */
static inline int ts_rings_at(int next, int n, int size, int i)
{
    int at = next - n + size + i;   /* 0 <= at < 2 size */
    return at < size ? at : at - size;
}

/* A ring's time as local time. */
static inline int64_t ts_rings_local(const ts_rings_t *r, int32_t t)
{
    return r->origin_local + t;
}

/* The i-th oldest point, way and block. */
static inline const ts_point_t *ts_rings_point(const ts_rings_t *r, int i)
{
    return &r->points[ts_rings_at(r->points_next, r->npoints, r->points_size, i)];
}

static inline const ts_way_t *ts_rings_way(const ts_rings_t *r, int i)
{
    return &r->ways[ts_rings_at(r->ways_next, r->nways, TS_RINGS_WAYS, i)];
}

static inline const ts_block_t *ts_rings_block(const ts_rings_t *r, int i)
{
    return &r->blocks[ts_rings_at(r->blocks_next, r->nblocks, TS_RINGS_BLOCKS, i)];
}

/* The earlier of a block's two times. */
static inline int32_t ts_block_time(const ts_block_t *b)
{
    return b->t_up < b->t_down ? b->t_up : b->t_down;
}

#endif
