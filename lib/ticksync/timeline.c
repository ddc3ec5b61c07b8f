/* lib/ticksync/timeline.c - the timeline of ticksync.h: server tick, input
 * tick, render time and time scale, from the estimator's server time, round
 * trip and jitter.
 *
 * The input lead (the way up plus margin x jitter) and the render lag (the
 * way down plus margin x jitter plus a tick) follow the path as the
 * estimator sees it. Where the jitter leaves a mode of spikes out, the
 * lead keeps one tick more: game netcode sends each input again in the
 * next frames' packets, and the first copy after a spiked packet leaves a
 * tick later, so the lead must leave it that tick to be in time (over
 * drawn traces, the draws with over 1 % of their inputs late in all four
 * packets: 52 of 1,000 -> 7, docs/DESIGN.md "The timeline"). While the
 * round trips run over their least (a queue, a route not yet a new
 * path), the lead also takes what the way up queues now (ticksync_queue_up:
 * episodes 192 -> 140 of 1,000 draws late). A longer lead is taken at
 * once, since an input stamped too early is late at the server; a shorter
 * one, and any change of the lag, is taken at max_scale (a 5% lag change
 * moves the render time at 0.95x or 1.05x), so input ticks and render
 * times never go back and never jump. */
#include <assert.h>
#include <math.h>

#include "timeline.h"

#define SCALE_TAU_US 1000000.0   /* time_scale closes an offset with this time constant */

void ticksync_ticks_default(ticksync_ticks_t *t, int64_t tick_us, int64_t epoch_us)
{
    *t = (ticksync_ticks_t) { .tick_us = tick_us, .epoch_us = epoch_us, .margin = 2.0, .max_scale = 0.05 };
}

static void check(const ticksync_ticks_t *t)
{
    assert(t && t->tick_us > 0 && t->margin >= 0 && t->max_scale > 0 && t->max_scale < 1);
    (void) t;
}

/* Moves *value toward target by at most rate per µs of dt. */
static void approach(double *value, double target, double rate, int64_t dt)
{
    double most = rate * (double) dt, d = target - *value;
    *value += d > most ? most : d < -most ? -most : d;
}

/* Server time now, with the lead and the lag brought up to date. */
static int64_t follow(ticksync_t *clock, const ticksync_ticks_t *t, int64_t local)
{
    check(t);
    ticksync_timeline_t *tl = ticksync_timeline_of(clock);
    int64_t now = ticksync_now(clock, local);
    double up = ticksync_up_share(clock), rtt = (double) ticksync_delay(clock);
    double margin = t->margin * (double) ticksync_jitter(clock);
    double copy = ticksync_spiky(clock) ? (double) t->tick_us : 0;   /* the next copy's tick (above) */
    double lead = up * rtt + margin + copy + ticksync_queue_up(clock);
    double lag = (1 - up) * rtt + margin + (double) t->tick_us;
    if (!tl->started) {
        tl->started = true;
        tl->local = local;   /* (any int64: a local clock may be below zero) */
        tl->lead_us = lead;
        tl->lag_us = lag;
    } else if (local > tl->local) {
        int64_t dt = local - tl->local;
        if (lead > tl->lead_us)
            tl->lead_us = lead;
        else
            approach(&tl->lead_us, lead, t->max_scale, dt);
        approach(&tl->lag_us, lag, t->max_scale, dt);
    }
    if (local > tl->local)
        tl->local = local;
    return now;
}

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

int64_t ticksync_server_tick(ticksync_t *clock, const ticksync_ticks_t *t, int64_t local, double *fraction)
{
    check(t);
    int64_t since = ticksync_now(clock, local) - t->epoch_us, tick = floor_div(since, t->tick_us);
    if (fraction)
        *fraction = (double) (since - tick * t->tick_us) / (double) t->tick_us;
    return tick;
}

/* Where an input made now lands, in ticks (continuous): its tick is the
 * next whole one, which the server starts only after the input is in. */
static double input_position(ticksync_t *clock, const ticksync_ticks_t *t, int64_t local)
{
    int64_t now = follow(clock, t, local);
    double arrive = (double) (now - t->epoch_us) + ticksync_timeline_of(clock)->lead_us;
    return arrive / (double) t->tick_us + 1;
}

int64_t ticksync_input_tick(ticksync_t *clock, const ticksync_ticks_t *t, int64_t local)
{
    ticksync_timeline_t *tl = ticksync_timeline_of(clock);
    int64_t tick = (int64_t) floor(input_position(clock, t, local));
    if (tick > tl->input_tick || !tl->inputs)
        tl->input_tick = tick;
    tl->inputs = true;
    return tl->input_tick;
}

int64_t ticksync_render_time(ticksync_t *clock, const ticksync_ticks_t *t, int64_t local)
{
    ticksync_timeline_t *tl = ticksync_timeline_of(clock);
    int64_t render = follow(clock, t, local) - (int64_t) llround(tl->lag_us);
    if (render > tl->render_time || !tl->renders)
        tl->render_time = render;
    tl->renders = true;
    return tl->render_time;
}

double ticksync_time_scale(ticksync_t *clock, const ticksync_ticks_t *t, int64_t local, int64_t client_tick,
                           double client_fraction)
{
    /* the client's simulation is behind its target by e (µs): running at
     * 1 + e / tau closes it exponentially (so without overshoot), at most
     * at max_scale */
    double behind = (input_position(clock, t, local) - ((double) client_tick + client_fraction)) * (double) t->tick_us;
    double s = behind / SCALE_TAU_US;
    return 1 + (s > t->max_scale ? t->max_scale : s < -t->max_scale ? -t->max_scale : s);
}
