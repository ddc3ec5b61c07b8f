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

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;
    return (x > y) - (x < y);
}

static void close_step(scene_history_t *h, uint64_t player_id, scene_history_row_t *done)
{
    *done = (scene_history_row_t) { .player_id = player_id, .t_us = h->t_us, .exchanges = h->exchanges,
                                     .lost = h->lost, .rtt_min_us = h->n ? h->min : 0,
                                     .rtt_max_us = h->n ? h->max : 0 };
    if (h->n) {
        qsort(h->rtt, (size_t) h->n, sizeof h->rtt[0], cmp_u32);
        done->rtt_p50_us = h->rtt[h->n / 2];
    }
    done->jitter_us = h->jitter_n ? (int64_t) llround(h->jitter_sum / h->jitter_n) : 0;
    int64_t step = h->step_us;
    scene_history_init(h, step);
}

bool scene_history_add(scene_history_t *h, uint64_t player_id, int64_t now_us, int64_t rtt, bool lost,
                       scene_history_row_t *done)
{
    int64_t start = now_us - ((now_us % h->step_us) + h->step_us) % h->step_us;
    bool closed = false;
    if (h->t_us && start != h->t_us && h->exchanges) {
        close_step(h, player_id, done);
        closed = true;
    }
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
            h->rtt[h->n] = rtt > UINT32_MAX ? UINT32_MAX : (uint32_t) rtt;
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
    if (!h->t_us || !h->exchanges || now_us < h->t_us + h->step_us)
        return false;
    close_step(h, player_id, done);
    return true;
}
