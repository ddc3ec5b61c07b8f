/* lib/ticksync/polling.c - see polling.h. */
#include "polling.h"

#include "tuning.h"

void ts_poll_init(ts_poll_t *p, int burst, int64_t burst_interval_us, int64_t interval_us, int64_t interval_max_us,
                  int64_t resume_gap_us)
{
    *p = (ts_poll_t) { .burst = burst, .burst_interval_us = burst_interval_us, .interval_us = interval_us,
                       .interval_max_us = interval_max_us, .current_us = interval_us,
                       .resume_gap_us = resume_gap_us, .burst_left = burst };
}

void ts_poll_set_interval(ts_poll_t *p, int64_t interval_us)
{
    p->interval_us = p->current_us = interval_us;
    p->streak = 0;
}

void ts_poll_burst(ts_poll_t *p)
{
    p->burst_left = p->burst;
    p->current_us = p->interval_us;
    p->streak = 0;
}

void ts_poll_soon(ts_poll_t *p)
{
    if (p->burst_left == 0)
        p->burst_left = 1;
    p->current_us = p->interval_us;
    p->streak = 0;
}

bool ts_poll_bursting(const ts_poll_t *p)
{
    return p->burst_left > 0;
}

void ts_poll_predicted(ts_poll_t *p, bool predicted)
{
    if (!predicted) {
        p->current_us = p->interval_us;
        p->streak = 0;
        return;
    }
    if (++p->streak < TS_TUNING.poll_streak)
        return;
    p->streak = 0;
    int64_t most = p->interval_max_us > p->interval_us ? p->interval_max_us : p->interval_us;
    p->current_us = p->current_us > most / 2 ? most : 2 * p->current_us;
}

void ts_poll_sent(ts_poll_t *p, int64_t local)
{
    p->last_sent = local;
    p->sent_any = true;
    if (p->burst_left > 0)
        p->burst_left--;
}

int64_t ts_poll_next(const ts_poll_t *p, bool synced)
{
    if (!p->sent_any)
        return INT64_MIN;
    bool bursting = p->burst_left > 0 || !synced;
    return p->last_sent + (bursting ? p->burst_interval_us : p->current_us);
}

bool ts_poll_asked(ts_poll_t *p, int64_t local)
{
    int64_t gap = local - p->asked_local;
    bool resume = false;
    if (p->asked_local && p->asked_gap > 0 && gap > p->resume_gap_us && gap > TS_TUNING.resume_ratio * p->asked_gap)
        resume = true;   /* only against a usual gap: a game's first gap is its usual one */
    else if (p->asked_local && gap > 0)
        p->asked_gap = gap;
    if (gap > 0 || !p->asked_local)
        p->asked_local = local;
    return resume;
}

void ts_poll_resumed(ts_poll_t *p)
{
    p->asked_local = 0;
}
