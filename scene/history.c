/* scene/history.c - see history.h. */
#include "history.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void scene_history_init(scene_history_t *h, int64_t step_us)
{
    memset(h, 0, sizeof *h);
    h->step_us = step_us > 0 ? step_us : 1;
}

/* The step so far, as a row. */
static void fill_row(const scene_history_t *h, uint64_t player_id, scene_history_row_t *part)
{
    *part = (scene_history_row_t) { .player_id = player_id, .t_us = h->t_us, .exchanges = h->exchanges,
                                     .lost = h->lost, .rtt_min_us = h->n ? h->min : 0,
                                     .rtt_max_us = h->n ? h->max : 0 };
    if (h->n)   /* kept sorted as they come */
        part->rtt_p50_us = h->rtt[h->n / 2];
    part->jitter_us = h->jitter_n ? (int64_t) llround(h->jitter_sum / h->jitter_n) : 0;
}

/* Ends the step: its row to *done when it had exchanges. */
static bool close_step(scene_history_t *h, uint64_t player_id, scene_history_row_t *done)
{
    bool had = h->t_us && h->exchanges > 0;
    if (had)
        fill_row(h, player_id, done);
    int64_t step = h->step_us;
    scene_history_init(h, step);
    return had;
}

/* v into the n sorted values of a, after any equal to it. The row leaves
 * for the writer after each exchange (scene_history_open), and sorting a
 * copy of the step's round trips each time to read their median cost the
 * scene some 1,300 instructions an exchange; here it costs a short move. */
static void insert_sorted(uint32_t *a, int n, uint32_t v)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (a[mid] <= v)
            lo = mid + 1;
        else
            hi = mid;
    }
    memmove(a + lo + 1, a + lo, (size_t) (n - lo) * sizeof a[0]);
    a[lo] = v;
}

bool scene_history_add(scene_history_t *h, uint64_t player_id, int64_t now_us, int64_t rtt, bool lost,
                       scene_history_row_t *done)
{
    int64_t start = now_us - ((now_us % h->step_us) + h->step_us) % h->step_us;
    bool closed = false;
    if (h->t_us && start != h->t_us)
        closed = close_step(h, player_id, done);
    if (h->t_us != start) {
        int64_t step = h->step_us;
        scene_history_init(h, step);
        h->t_us = start;
    }
    h->exchanges++;
    if (lost) {
        h->lost++;
    } else if (rtt >= 0) {
        if (h->n < SCENE_HISTORY_SAMPLES)
            insert_sorted(h->rtt, h->n, rtt > UINT32_MAX ? UINT32_MAX : (uint32_t) rtt);
        h->min = h->n == 0 || rtt < h->min ? rtt : h->min;
        h->max = h->n == 0 || rtt > h->max ? rtt : h->max;
        if (h->n > 0) {
            h->jitter_sum += (double) llabs(rtt - h->last);
            h->jitter_n++;
        }
        h->last = rtt;
        if (h->n < SCENE_HISTORY_SAMPLES)
            h->n++;
    }
    return closed;
}

bool scene_history_flush(scene_history_t *h, uint64_t player_id, int64_t now_us, scene_history_row_t *done)
{
    if (!h->t_us || now_us < h->t_us + h->step_us)
        return false;
    return close_step(h, player_id, done);
}

void scene_history_open(const scene_history_t *h, uint64_t player_id, scene_history_row_t *row)
{
    if (h->t_us && h->exchanges > 0)
        fill_row(h, player_id, row);
    else
        *row = (scene_history_row_t) { .player_id = player_id };
}

static int cmp_key(const void *a, const void *b)
{
    const scene_history_row_t *x = a, *y = b;
    if (x->t_us != y->t_us)
        return (x->t_us > y->t_us) - (x->t_us < y->t_us);
    return (x->player_id > y->player_id) - (x->player_id < y->player_id);
}

/* A round-trip minimum of 0 means the part had none. */
static int64_t min_known(int64_t a, int64_t b)
{
    return a == 0 ? b : b == 0 ? a : a < b ? a : b;
}

size_t scene_history_coalesce(scene_history_row_t *rows, size_t n)
{
    if (n < 2)
        return n;
    qsort(rows, n, sizeof rows[0], cmp_key);
    size_t out = 0;
    for (size_t i = 1; i < n; i++) {
        scene_history_row_t *a = &rows[out], *b = &rows[i];
        if (cmp_key(a, b) != 0) {
            rows[++out] = *b;
            continue;
        }
        const scene_history_row_t *later = b->seen > a->seen ? b : a;
        scene_history_row_t merged = *later;
        merged.exchanges = a->exchanges + b->exchanges;
        merged.lost = a->lost + b->lost;
        merged.rtt_min_us = min_known(a->rtt_min_us, b->rtt_min_us);
        merged.rtt_max_us = a->rtt_max_us > b->rtt_max_us ? a->rtt_max_us : b->rtt_max_us;
        if (later->rtt_p50_us == 0) {   /* the later part had no round trip yet: the earlier's figures */
            const scene_history_row_t *earlier = later == a ? b : a;
            merged.rtt_p50_us = earlier->rtt_p50_us;
            merged.jitter_us = earlier->jitter_us;
        }
        *a = merged;
    }
    return out + 1;
}
