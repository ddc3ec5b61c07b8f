/* lib/ticksync/polling.h - when the clock asks the server next: a burst of
 * exchanges at the start, after a new path, a resync or a resume, one
 * at the burst's pace for a sample that waits for a second, then one an
 * interval; and when the game was away (a gap in the local times
 * the clock is asked at, far longer than usual: paused, or in the
 * background), which calls for a burst. A value type the estimator
 * embeds; no clock of its own: every time is the caller's local one.
 *
 * The interval adapts, as chrony's polling does: it doubles, up to
 * interval_max_us, after TS_TUNING.poll_streak (tuning.h) samples in a
 * row that the clock's model predicted (a steady rate, and each sample
 * within the model's allowance of its edges: the estimator's
 * note_predicted), and goes back to interval_us (the floor: the server's
 * sync_interval_ms) at the first it did not, or with a burst. */
#ifndef TICKSYNC_POLLING_H
#define TICKSYNC_POLLING_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
    int     burst;              /* exchanges a burst has */
    int64_t burst_interval_us;  /* between them */
    int64_t interval_us;        /* between exchanges otherwise, at least (the floor) */
    int64_t interval_max_us;    /* ... and at most */
    int64_t current_us;         /* between exchanges now */
    int     streak;             /* samples in a row the model predicted */
    int64_t resume_gap_us;      /* an ask this long after the last, and 8 times the usual gap, is a resume */
    int     burst_left;
    int64_t last_sent;
    bool    sent_any;
    int64_t asked_local, asked_gap;   /* when the clock was last asked, and the usual gap */
} ts_poll_t;


/* Starts with a burst, at the floor. interval_max_us below interval_us:
 * interval_us (no adapting). */
void ts_poll_init(ts_poll_t *p, int burst, int64_t burst_interval_us, int64_t interval_us, int64_t interval_max_us,
                  int64_t resume_gap_us);
/* A new floor (the server's interval); the interval starts over from it. */
void ts_poll_set_interval(ts_poll_t *p, int64_t interval_us);
/* A sample, outside a burst: whether the clock's model predicted it. */
void ts_poll_predicted(ts_poll_t *p, bool predicted);
/* Whether a burst is under way. */
bool ts_poll_bursting(const ts_poll_t *p);
/* A burst from the next exchange on (a new path, a resync), and the
 * interval back to the floor. */
void ts_poll_burst(ts_poll_t *p);
/* The next exchange at the burst's pace, and the interval back to the
 * floor: a sample waits for a second one (a step, a shorter route). */
void ts_poll_soon(ts_poll_t *p);
/* A SYNC left at local. */
void ts_poll_sent(ts_poll_t *p, int64_t local);
/* When the next is due: INT64_MIN before the first (at once), the burst's
 * pace while a burst lasts or the clock is not synced, else the interval's. */
int64_t ts_poll_next(const ts_poll_t *p, bool synced);
/* The clock is asked at local: true when the gap since the last ask is a
 * resume (the caller counts it and bursts). */
bool ts_poll_asked(ts_poll_t *p, int64_t local);
/* The game says it resumed: the gap the next ask sees is this resume's,
 * not counted again. */
void ts_poll_resumed(ts_poll_t *p);

#endif
