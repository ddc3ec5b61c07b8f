/* lib/ticksync/poll.h - when the clock asks the server next: a burst of
 * exchanges at the start, after a new path, a resync or a resume, then
 * one an interval; and when the game was away (a gap in the local times
 * the clock is asked at, far longer than usual: paused, or in the
 * background), which calls for a burst. A value type the estimator
 * embeds; no clock of its own: every time is the caller's local one. */
#ifndef TICKSYNC_POLL_H
#define TICKSYNC_POLL_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
    int     burst;              /* exchanges a burst has */
    int64_t burst_interval_us;  /* between them */
    int64_t interval_us;        /* between exchanges otherwise */
    int64_t resume_gap_us;      /* an ask this long after the last, and 8 times the usual gap, is a resume */
    int     burst_left;
    int64_t last_sent;
    bool    sent_any;
    int64_t asked_local, asked_gap;   /* when the clock was last asked, and the usual gap */
} ts_poll_t;

/* Starts with a burst. */
void ts_poll_init(ts_poll_t *p, int burst, int64_t burst_interval_us, int64_t interval_us, int64_t resume_gap_us);
/* A burst from the next exchange on (a new path, a resync). */
void ts_poll_burst(ts_poll_t *p);
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
