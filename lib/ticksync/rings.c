/* lib/ticksync/rings.c - see rings.h. */
#include "rings.h"

/* A sample ORIGIN_MOVE µs (34 minutes) after the origin moves it to
 * ORIGIN_AHEAD (18 minutes) before the sample; an entry older than OLDEST
 * against the origin is then forgotten. */
#define ORIGIN_MOVE  (INT32_MAX - (INT64_C(1) << 27))
#define ORIGIN_AHEAD (INT64_C(1) << 30)
#define OLDEST       INT32_MIN

void ts_rings_init(ts_rings_t *r, int points_size)
{
    r->points_size = points_size;
    ts_rings_clear(r);
}

void ts_rings_clear(ts_rings_t *r)
{
    r->npoints = r->points_next = 0;
    r->nways = r->ways_next = 0;
    ts_rings_clear_blocks(r);
}

void ts_rings_clear_blocks(ts_rings_t *r)
{
    r->nblocks = r->blocks_next = r->open_count = 0;
}

void ts_rings_follow(ts_rings_t *r, int64_t local, double offset)
{
    if (r->nways == 0 && r->npoints == 0 && r->nblocks == 0 && r->open_count == 0) {
        r->origin_local = local;
        r->origin_offset = offset;
        return;
    }
    if (local - r->origin_local < ORIGIN_MOVE)
        return;
    int64_t dt = local - ORIGIN_AHEAD - r->origin_local;
    double doff = offset - r->origin_offset;
    r->origin_local += dt;
    r->origin_offset = offset;
    for (; r->nways > 0 && ts_rings_way(r, 0)->local - dt < OLDEST; r->nways--)
        ;
    for (int i = 0; i < r->nways; i++) {
        ts_way_t *w = &r->ways[ts_rings_at(r->ways_next, r->nways, TS_RINGS_WAYS, i)];
        w->local = (int32_t) (w->local - dt);
        w->up = (float) (w->up - doff);
        w->down = (float) (w->down + doff);
    }
    for (; r->npoints > 0 && ts_rings_point(r, 0)->local - dt < OLDEST; r->npoints--)
        ;
    for (int i = 0; i < r->npoints; i++) {
        ts_point_t *p = &r->points[ts_rings_at(r->points_next, r->npoints, r->points_size, i)];
        p->local = (int32_t) (p->local - dt);
        p->offset = (float) (p->offset - doff);
    }
    for (; r->nblocks > 0 && ts_block_time(ts_rings_block(r, 0)) - dt < OLDEST; r->nblocks--)
        ;
    if (r->open_count > 0 && ts_block_time(&r->open_block) - dt < OLDEST)
        r->open_count = 0;
    for (int i = 0; i < r->nblocks + (r->open_count > 0); i++) {
        ts_block_t *b = i == r->nblocks ? &r->open_block
                                        : &r->blocks[ts_rings_at(r->blocks_next, r->nblocks, TS_RINGS_BLOCKS, i)];
        b->t_up = (int32_t) (b->t_up - dt);
        b->t_down = (int32_t) (b->t_down - dt);
        b->up = (float) (b->up - doff);
        b->down = (float) (b->down + doff);
    }
}

void ts_rings_move_before(ts_rings_t *r, double step, int64_t before)
{
    for (int i = 0; i < r->npoints && ts_rings_local(r, ts_rings_point(r, i)->local) < before; i++) {
        ts_point_t *p = &r->points[ts_rings_at(r->points_next, r->npoints, r->points_size, i)];
        p->offset = (float) (p->offset + step);
    }
    for (int i = 0; i < r->nways && ts_rings_local(r, ts_rings_way(r, i)->local) < before; i++) {
        ts_way_t *w = &r->ways[ts_rings_at(r->ways_next, r->nways, TS_RINGS_WAYS, i)];
        w->up = (float) (w->up + step);
        w->down = (float) (w->down - step);
    }
}

void ts_rings_add_point(ts_rings_t *r, const ts_sample_t *s)
{
    r->points[r->points_next] = (ts_point_t) { .local = (int32_t) (s->local - r->origin_local),
                                               .offset = (float) (s->offset - r->origin_offset),
                                               .delay = (int32_t) s->delay };
    r->points_next = (r->points_next + 1) % r->points_size;
    if (r->npoints < r->points_size)
        r->npoints++;
}

/* w joins the open block; true when that filled it and it joined the ring. */
static bool add_block(ts_rings_t *r, const ts_way_t *w, double slope)
{
    ts_block_t *b = &r->open_block;
    if (r->open_count == 0) {
        *b = (ts_block_t) { .t_up = w->local, .up = w->up, .t_down = w->local, .down = w->down };
    } else {
        if (w->up - slope * (double) ((int64_t) w->local - b->t_up) < b->up) {
            b->up = w->up;
            b->t_up = w->local;
        }
        if (w->down + slope * (double) ((int64_t) w->local - b->t_down) < b->down) {
            b->down = w->down;
            b->t_down = w->local;
        }
    }
    if (++r->open_count < TS_RINGS_BLOCK)
        return false;
    r->open_count = 0;
    r->blocks[r->blocks_next] = *b;
    r->blocks_next = (r->blocks_next + 1) % TS_RINGS_BLOCKS;
    if (r->nblocks < TS_RINGS_BLOCKS)
        r->nblocks++;
    return true;
}

bool ts_rings_add_ways(ts_rings_t *r, const ts_sample_t *s, double up_fraction, double slope)
{
    double f = up_fraction, offset = s->offset - r->origin_offset;
    ts_way_t *w = &r->ways[r->ways_next];
    *w = (ts_way_t) { .local = (int32_t) (s->local - r->origin_local),
                      .up = (float) (offset + f * (double) s->delay),
                      .down = (float) ((1 - f) * (double) s->delay - offset) };
    bool closed = add_block(r, w, slope);
    r->ways_next = (r->ways_next + 1) % TS_RINGS_WAYS;
    if (r->nways < TS_RINGS_WAYS)
        r->nways++;
    return closed;
}

int ts_rings_ways_from(const ts_rings_t *r, int64_t since)
{
    int skip = 0;
    while (skip < r->nways && ts_rings_local(r, ts_rings_way(r, skip)->local) < since)
        skip++;
    return skip;
}
