/* lib/ticksync/timeline.h - private to libticksync: what the timeline
 * (timeline.c) keeps inside a ticksync_t, and what it reads of the
 * estimator beyond ticksync.h. Not installed. */
#ifndef TICKSYNC_TIMELINE_H
#define TICKSYNC_TIMELINE_H

#include <stdbool.h>
#include <stdint.h>

#include "ticksync.h"

typedef struct {
    bool    started;
    int64_t local;         /* the last call's local time */
    double  lead_us;       /* the input lead and the render lag now (they move at max_scale) */
    double  lag_us;
    bool    inputs, renders;   /* whether an input tick, a render time was answered */
    int64_t input_tick;    /* the last answers: never less */
    int64_t render_time;
} ticksync_timeline_t;

/* The clock's timeline state (owned by the clock, zeroed by ticksync_new;
 * a path reset or a server step leaves it, so the answers move on from
 * where they were). */
ticksync_timeline_t *ticksync_timeline_of(ticksync_t *clock);
/* The clock's up_fraction (ticksync_config_t). */
double ticksync_up_share(const ticksync_t *clock);
/* Whether the jitter leaves a separate mode of spikes out (jitter.h). */
bool ticksync_spiky(const ticksync_t *clock);
/* How much the way up queues now, while the round trips run over their
 * least (µs; 0 otherwise). */
double ticksync_queue_up(const ticksync_t *clock);

#endif
