/* scene/history.h - a player's latency history, one step at a time
 * (DESIGN: table player_latency_history): while a step of --history-step-s
 * lasts, its exchanges, losses and valid round trips are gathered; when an
 * exchange falls in a later step, the finished one becomes a row: rtt
 * min / median / max, and the jitter (the mean change between consecutive
 * round trips, as RFC 3550 measures interarrival jitter).
 *
 * So that a SIGKILL loses no more of a step than of the latency rows (one
 * flush interval), the open step rides in the player's row: each time the
 * row leaves for the writer, scene_history_open gives the step so far, and
 * the store keeps it in player_latency's step_* columns. A scene that
 * starts moves the steps it finds there into the history (scene/store.c).
 * A step can so come in parts (a scene stopped in the middle of it, or a
 * player evicted and back): the store adds the counts up and keeps the
 * latest part's figures.
 *
 * A value type embedded in each player; a step holds up to
 * SCENE_HISTORY_SAMPLES round trips (a client at the default 1 a second
 * fills 60 in a 60 s step); past that the median comes from the first. */
#ifndef SCENE_HISTORY_H
#define SCENE_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SCENE_HISTORY_SAMPLES 64

typedef struct {
    uint64_t player_id;
    int64_t  t_us;          /* the step's start, server time */
    int64_t  exchanges, lost;
    int64_t  rtt_min_us, rtt_p50_us, rtt_max_us, jitter_us;
    int64_t  seen;          /* the writer's count of rows taken when it took this one: of two parts of a
                             * step, the later is greater (a part's own counts say nothing of its order) */
} scene_history_row_t;

typedef struct {
    int64_t  step_us;
    int64_t  t_us;          /* the current step's start; 0: none yet */
    int64_t  exchanges, lost;
    uint32_t rtt[SCENE_HISTORY_SAMPLES];   /* the step's first round trips, sorted */
    int      n;
    int64_t  min, max, last;
    double   jitter_sum;
    int      jitter_n;
} scene_history_t;

void scene_history_init(scene_history_t *h, int64_t step_us);
/* An exchange at server time now_us: its round trip (rtt < 0: invalid, or
 * lost when lost). When it starts a new step and the previous one had
 * exchanges, that step's row is written to *done and true returned. */
bool scene_history_add(scene_history_t *h, uint64_t player_id, int64_t now_us, int64_t rtt, bool lost,
                       scene_history_row_t *done);
/* The current step's row, if it ended by now_us (the player fell silent;
 * INT64_MAX: at a stop or an eviction) and had exchanges: written to *done
 * and true returned. An ended step is cleared either way. */
bool scene_history_flush(scene_history_t *h, uint64_t player_id, int64_t now_us, scene_history_row_t *done);
/* The open step so far, for the player's row; t_us 0 when there is none. */
void scene_history_open(const scene_history_t *h, uint64_t player_id, scene_history_row_t *row);

/* Sorts n parts into the store's key order (step, then player) and merges
 * the parts of one player's step into one, as the store would (counts
 * added, the extremes kept, the figures of the later part by seen).
 * Returns how many rows are left at the front of rows. */
size_t scene_history_coalesce(scene_history_row_t *rows, size_t n);

#endif
