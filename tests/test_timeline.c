/* tests/test_timeline.c - the game's side of ticks (lib/ticksync/timeline.c):
 * the server tick, the input tick that reaches the server in time, the
 * render time behind the way down, the time scale that brings a client's
 * simulation onto the input tick without overshoot, and resumes. A clock is
 * driven through simulated exchanges on a path with known delays. */
#include <criterion/criterion.h>
#include <math.h>

#include "prng.h"
#include "ticksync.h"

#define OFFSET  777000000LL   /* server time minus local time */
#define TICK    16667
#define EPOCH   1000000LL

typedef struct {
    ticksync_t *clock;
    uint64_t    rng;
    double      up_us, down_us, jitter_us;   /* the path: base delays, uniform jitter each way */
    double      t;                           /* true (server) time, µs */
    double      next_sync;
} sim_t;

static int64_t local_of(double t)
{
    return (int64_t) llround(t) - OFFSET;
}

/* Runs the path until true time until, an exchange whenever the clock asks,
 * frame(sim) at 60 Hz in between. */
static void run_until(sim_t *s, double until, void (*frame)(sim_t *))
{
    while (s->t < until) {
        if (s->t >= s->next_sync) {
            int64_t t1 = local_of(s->t);
            ticksync_sent(s->clock, t1);
            double up = s->up_us + s->jitter_us * ts_prng_uniform(&s->rng);
            double down = s->down_us + s->jitter_us * ts_prng_uniform(&s->rng);
            ticksync_sample(s->clock, t1, (int64_t) llround(s->t + up), (int64_t) llround(s->t + up + 50),
                            local_of(s->t + up + 50 + down));
            int64_t due = ticksync_next_sync(s->clock);
            s->next_sync = (double) (due + OFFSET);
        }
        if (frame)
            frame(s);
        s->t += 1e6 / 60;
    }
}

static sim_t sim(double up_us, double down_us, double jitter_us)
{
    sim_t s = { .clock = ticksync_new(NULL), .rng = 7, .up_us = up_us, .down_us = down_us, .jitter_us = jitter_us,
                .t = 5e6 };
    cr_assert_not_null(s.clock);
    return s;
}

static ticksync_ticks_t ticks(void)
{
    ticksync_ticks_t t;
    ticksync_ticks_default(&t, TICK, EPOCH);
    return t;
}

Test(timeline, the_server_tick_and_how_far_into_it)
{
    sim_t s = sim(20000, 20000, 0);
    run_until(&s, 30e6, NULL);
    ticksync_ticks_t t = ticks();
    double fraction;
    int64_t local = local_of(s.t), server = ticksync_now(s.clock, local);
    int64_t tick = ticksync_server_tick(s.clock, &t, local, &fraction);
    cr_assert_eq(tick, (server - EPOCH) / TICK);
    cr_assert_float_eq(fraction, (double) ((server - EPOCH) % TICK) / TICK, 1e-9);
    t.epoch_us = server + 1;   /* before tick 0: negative ticks, fractions still 0..1 */
    tick = ticksync_server_tick(s.clock, &t, local, &fraction);
    cr_assert_eq(tick, -1);
    cr_assert(fraction > 0.99 && fraction < 1, "%f", fraction);
    ticksync_destroy(&s.clock);
}

Test(timeline, inputs_are_stamped_ahead_by_the_way_up_and_the_jitter_margin)
{
    sim_t s = sim(30000, 10000, 4000);
    ticksync_config_t c;
    ticksync_config_default(&c);
    run_until(&s, 60e6, NULL);
    ticksync_ticks_t t = ticks();
    int64_t local = local_of(s.t);
    int64_t server = ticksync_now(s.clock, local), jitter = ticksync_jitter(s.clock);
    cr_assert(jitter > 1000 && jitter < 6000, "jitter %lld us for 0..4 ms each way", (long long) jitter);
    int64_t lead = ticksync_delay(s.clock) / 2 + 2 * jitter;   /* up_fraction 0.5: the way up is half the trip */
    int64_t want = (server + lead - EPOCH) / TICK + 1;
    int64_t got = ticksync_input_tick(s.clock, &t, local);
    cr_assert(got == want || got == want + 1 || got == want - 1, "input tick %lld, want %lld", (long long) got,
              (long long) want);
    cr_assert_gt(got, ticksync_server_tick(s.clock, &t, local, NULL), "ahead of the server");
    ticksync_destroy(&s.clock);
}

/* The frame callback's checks: input ticks and render times never go back. */
static int64_t last_input, last_render;
static int backwards;
static ticksync_ticks_t frame_ticks;
static void check_frame(sim_t *s)
{
    int64_t local = local_of(s->t);
    int64_t in = ticksync_input_tick(s->clock, &frame_ticks, local);
    int64_t render = ticksync_render_time(s->clock, &frame_ticks, local);
    if (last_input && (in < last_input || render < last_render))
        backwards++;
    last_input = in;
    last_render = render;
}

Test(timeline, input_ticks_and_render_times_never_go_back_when_the_path_changes)
{
    sim_t s = sim(40000, 40000, 3000);
    frame_ticks = ticks();
    run_until(&s, 60e6, check_frame);
    int64_t render_lag = ticksync_now(s.clock, local_of(s.t)) - ticksync_render_time(s.clock, &frame_ticks, local_of(s.t));
    cr_assert_gt(render_lag, 40000 + TICK, "behind by the way down and a tick: %lld us", (long long) render_lag);
    s.up_us = s.down_us = 5000;   /* a much shorter route: the lead and the lag shrink */
    s.jitter_us = 0;
    run_until(&s, 120e6, check_frame);
    s.up_us = s.down_us = 60000;  /* and a much longer one */
    s.jitter_us = 8000;
    run_until(&s, 180e6, check_frame);
    cr_assert_eq(backwards, 0);
    ticksync_stats_t st;
    ticksync_stats(s.clock, &st);
    cr_assert_geq(st.path_resets, 1, "the longer route was a new path");
    ticksync_destroy(&s.clock);
}

/* The local times here are below zero (local_of: true time less 777 s), as
 * any int64 may be: until 2026-12-02 the timeline moved its lead and lag
 * only at a local time past the last one it had, which started at 0, so
 * from a clock below zero they stayed as its first call set them. */
Test(timeline, the_lead_follows_a_longer_route_on_a_local_clock_below_zero)
{
    sim_t s = sim(20000, 20000, 1000);
    frame_ticks = ticks();
    run_until(&s, 60e6, check_frame);
    s.up_us = s.down_us = 60000;
    run_until(&s, 120e6, check_frame);
    int64_t local = local_of(s.t);
    cr_assert_lt(local, 0);
    int64_t ahead = ticksync_input_tick(s.clock, &frame_ticks, local) - ticksync_server_tick(s.clock, &frame_ticks, local, NULL);
    cr_assert_geq(ahead, 60000 / TICK + 1, "%lld ticks ahead of the server on a 60 ms way up", (long long) ahead);
    ticksync_destroy(&s.clock);
}

Test(timeline, the_time_scale_brings_a_client_200_ms_behind_onto_the_input_tick_without_overshoot)
{
    sim_t s = sim(20000, 20000, 2000);
    run_until(&s, 30e6, NULL);
    ticksync_ticks_t t = ticks();
    double pos = (double) ticksync_input_tick(s.clock, &t, local_of(s.t)) - 200000.0 / TICK;   /* 200 ms behind */
    double lo = 1, hi = 1, settled = -1;
    for (int f = 0; f < 60 * 30; f++) {
        int64_t local = local_of(s.t);
        double scale = ticksync_time_scale(s.clock, &t, local, (int64_t) floor(pos), pos - floor(pos));
        lo = fmin(lo, scale);
        hi = fmax(hi, scale);
        double behind = (double) ticksync_input_tick(s.clock, &t, local) - pos;
        cr_assert_gt(behind, -1.0, "no overshoot past the input tick (frame %d: %.2f ticks)", f, behind);
        if (settled < 0 && fabs(behind) < 1.0)
            settled = f / 60.0;
        pos += scale * (1e6 / 60) / TICK;   /* the game's simulation, at that speed */
        run_until(&s, s.t + 1, NULL);       /* one frame */
    }
    cr_assert(lo >= 1 - t.max_scale && hi <= 1 + t.max_scale, "scale within 1 +- %.2f: %.3f .. %.3f", t.max_scale, lo, hi);
    cr_assert_float_eq(hi, 1 + t.max_scale, 1e-9, "far behind, at full speed");
    cr_assert(settled > 0 && settled < 10, "within a tick after %.1f s", settled);
    ticksync_destroy(&s.clock);
}

Test(timeline, a_pause_is_a_resume_and_brings_a_burst)
{
    sim_t s = sim(20000, 20000, 1000);
    frame_ticks = ticks();
    run_until(&s, 60e6, check_frame);
    int64_t steady = ticksync_next_sync(s.clock);
    ticksync_stats_t st;
    ticksync_stats(s.clock, &st);
    cr_assert_eq(st.resumes, 0, "60 Hz frames are no resume");
    s.t += 5e6;   /* the game was in the background for 5 s */
    s.next_sync = s.t;
    ticksync_now(s.clock, local_of(s.t));
    ticksync_stats(s.clock, &st);
    cr_assert_eq(st.resumes, 1);
    int64_t t1 = local_of(s.t);
    ticksync_sent(s.clock, t1);
    cr_assert_eq(ticksync_next_sync(s.clock) - t1, 100000, "the burst's interval, not the steady one");
    (void) steady;
    ticksync_destroy(&s.clock);
}

Test(timeline, resync_starts_a_burst)
{
    sim_t s = sim(20000, 20000, 1000);
    run_until(&s, 30e6, NULL);
    int64_t t1 = local_of(s.t);
    ticksync_sent(s.clock, t1);
    cr_assert_eq(ticksync_next_sync(s.clock) - t1, 1000000);
    ticksync_resync(s.clock);
    ticksync_sent(s.clock, t1);
    cr_assert_eq(ticksync_next_sync(s.clock) - t1, 100000);
    ticksync_destroy(&s.clock);
}

static uint64_t resumes(const ticksync_t *clock)
{
    ticksync_stats_t st;
    ticksync_stats(clock, &st);
    return st.resumes;
}

Test(timeline, resume_told_by_the_game_counts_and_starts_a_burst)
{
    sim_t s = sim(20000, 20000, 1000);
    run_until(&s, 30e6, NULL);
    uint64_t before = resumes(s.clock);
    int64_t t1 = local_of(s.t);
    ticksync_resume(s.clock);   /* a tab shown again, say: no gap in the asks needed */
    cr_assert_eq(resumes(s.clock), before + 1);
    ticksync_sent(s.clock, t1);
    cr_assert_eq(ticksync_next_sync(s.clock) - t1, 100000, "the burst's interval");
    ticksync_destroy(&s.clock);
}

Test(timeline, a_resume_told_and_then_noticed_counts_once)
{
    sim_t s = sim(20000, 20000, 1000);
    run_until(&s, 30e6, NULL);
    uint64_t before = resumes(s.clock);
    s.t += 5e6;   /* 5 s in the background; the game says so, then asks the time */
    ticksync_resume(s.clock);
    ticksync_now(s.clock, local_of(s.t));
    cr_assert_eq(resumes(s.clock), before + 1);
    ticksync_destroy(&s.clock);
}

/* Exchanges once a second on a 20 ms + 20 ms path whose way up adds
 * excess(u) for a uniform draw u (from seed); returns the clock's jitter
 * after n. */
static int64_t jitter_after(int n, double (*excess)(double), uint64_t seed)
{
    ticksync_t *clock = ticksync_new(NULL);
    cr_assert_not_null(clock);
    uint64_t rng = seed;
    for (int i = 0; i < n; i++) {
        double t = 5e6 + i * 1e6, up = 20000 + excess(ts_prng_uniform(&rng));
        int64_t t1 = local_of(t);
        ticksync_sent(clock, t1);
        ticksync_sample(clock, t1, (int64_t) llround(t + up), (int64_t) llround(t + up + 50),
                        local_of(t + up + 50 + 20000));
    }
    int64_t j = ticksync_jitter(clock);
    ticksync_destroy(&clock);
    return j;
}

/* 97 % spread over 0..9.7 ms, the last 3 % over 12..18 ms: a tail of
 * one piece with the rest. (It was 2 % at 14 ms and 1 % at 18: the 99th
 * percentile sat on the step between the two, 14 or 18 ms as the draw
 * fell.) */
static double one_tail(double u)
{
    return u < 0.97 ? u * 10000 : 12000 + (u - 0.97) / 0.03 * 6000;
}

/* 98 % spread over 0..9.8 ms, and 2 % spikes of 300 ms. */
static double spikes(double u)
{
    return u < 0.98 ? u * 10000 : 300000;
}

/* Over 50 draws of 700 exchanges. The tail of one piece: the 99th
 * percentile about 15 ms over the least, so half of it, not the 97th's
 * half (about 4.3 ms). The spikes: a 99th over 30 times the 97th, so the
 * 97th's half, not 150 ms; where over 3 % of the last 512 draws were
 * spikes the 97th is one too. Over draws 1-1000 (2026-11-28, a80657a),
 * 13 tails fell under 5.5 ms (their top 3 % underdrawn) and 31 spiky
 * draws gave 150 ms. */
Test(timeline, the_jitter_reaches_a_tail_of_one_piece_but_not_spikes)
{
    int tails = 0, spiked = 0;
    for (uint64_t seed = 1; seed <= 50; seed++) {
        int64_t tail = jitter_after(700, one_tail, seed), spiky = jitter_after(700, spikes, seed);
        tails += tail >= 5500 && tail <= 8500;
        spiked += spiky >= 3500 && spiky <= 5000;
    }
    cr_assert_geq(tails, 45, "jitter within 5.5-8.5 ms under a tail of one piece in %d of 50", tails);
    cr_assert_geq(spiked, 45, "jitter within 3.5-5 ms under 2 %% spikes of 300 ms in %d of 50", spiked);
}

/* One message's way up on a 20 ms path with 0-0.3 ms of jitter, 2 % of
 * them 200 ms later (a radio waking). */
static double spiky_up(uint64_t *rng)
{
    double up = 20000 + 300 * ts_prng_uniform(rng);
    return ts_prng_uniform(rng) < 0.02 ? up + 200000 : up;
}

/* A 60 Hz game that sends each input in its frame's packet and again in
 * the next frame's, as netcode does, on the path above: the jitter
 * leaves the spikes out, so the lead stays near the way up, and an input
 * whose first packet is spiked is in time by its copy, which leaves a
 * tick later. Without the lead's tick for it 1.9 % of the inputs are late
 * in both packets (the spikes'); with it, 0.3 % (a copy whose margin, the
 * lead's 0.5 ms over the way up, the clock's error and the tick's phase
 * took). */
Test(timeline, an_input_s_next_copy_beats_the_spike_its_first_packet_met)
{
    ticksync_t *clock = ticksync_new(NULL);
    cr_assert_not_null(clock);
    ticksync_ticks_t t = ticks();
    uint64_t rng = 17;
    double next_sync = 5e6, prev_arrives = 0;
    int64_t prev_tick = 0, most_ahead = 0;
    int inputs = 0, late = 0;
    for (double now = 5e6; now < 600e6; now += 1e6 / 60) {
        if (now >= next_sync) {
            int64_t t1 = local_of(now);
            ticksync_sent(clock, t1);
            double up = spiky_up(&rng), down = 20000 + 300 * ts_prng_uniform(&rng);
            ticksync_sample(clock, t1, (int64_t) llround(now + up), (int64_t) llround(now + up + 50),
                            local_of(now + up + 50 + down));
            next_sync = (double) (ticksync_next_sync(clock) + OFFSET);
        }
        int64_t local = local_of(now), tick = ticksync_input_tick(clock, &t, local);
        double arrives = now + spiky_up(&rng);   /* this frame's packet: this input, and the last again */
        if (now >= 60e6 && prev_tick) {
            double starts = (double) (prev_tick * TICK + EPOCH);
            inputs++;
            late += prev_arrives >= starts && arrives >= starts;
            int64_t ahead = prev_tick - ticksync_server_tick(clock, &t, local, NULL);
            most_ahead = ahead > most_ahead ? ahead : most_ahead;
        }
        prev_tick = tick;
        prev_arrives = arrives;
    }
    cr_log_info("%d of %d inputs late in both packets, at most %lld ticks ahead", late, inputs,
                (long long) most_ahead);
    cr_assert_lt(late, inputs / 200, "%d of %d inputs late in both their packets", late, inputs);
    cr_assert_leq(most_ahead, 4, "the lead %lld ticks on a 20 ms way up", (long long) most_ahead);
    ticksync_destroy(&clock);
}

/* A 60 Hz game on a 20 ms path with 0-1 ms of jitter whose way up queues
 * queue_us more for length_s of every every_s from from_s on (an upload
 * saturating the uplink), each input sent once, for seconds_s: how many
 * of its inputs are late. */
static int late_under_a_queue(double queue_us, double from_s, double every_s, double length_s, double seconds_s)
{
    ticksync_t *clock = ticksync_new(NULL);
    cr_assert_not_null(clock);
    ticksync_ticks_t t = ticks();
    uint64_t rng = 23;
    double next_sync = 5e6;
    int inputs = 0, late = 0;
    for (double now = 5e6; now < seconds_s * 1e6; now += 1e6 / 60) {
        double queue = now >= from_s * 1e6 && fmod(now - from_s * 1e6, every_s * 1e6) < length_s * 1e6 ? queue_us : 0;
        if (now >= next_sync) {
            int64_t t1 = local_of(now);
            ticksync_sent(clock, t1);
            double up = 20000 + queue + 1000 * ts_prng_uniform(&rng), down = 20000 + 1000 * ts_prng_uniform(&rng);
            ticksync_sample(clock, t1, (int64_t) llround(now + up), (int64_t) llround(now + up + 50),
                            local_of(now + up + 50 + down));
            next_sync = (double) (ticksync_next_sync(clock) + OFFSET);
        }
        int64_t tick = ticksync_input_tick(clock, &t, local_of(now));
        if (now >= 60e6) {
            inputs++;
            late += now + 20000 + queue + 1000 * ts_prng_uniform(&rng) >= (double) (tick * TICK + EPOCH);
        }
    }
    ticksync_destroy(&clock);
    cr_log_info("a queue of %.0f us: %d of %d inputs late", queue_us, late, inputs);
    return late;
}

/* 40 ms: the round trips rise over the filter's least, and the lead takes
 * the queue once two exchanges in a row meet it, so the inputs late are
 * those of each episode's first seconds. Without it 2.2 % of the inputs
 * were late (an episode's, until its sixth rise made it a new path); with
 * it, 1.1 % (until the second). */
Test(timeline, the_lead_takes_a_queue_on_the_way_up_as_the_exchanges_meet_it)
{
    cr_assert_lt(late_under_a_queue(40000, 120, 120, 10, 600), 32400 * 16 / 1000);   /* of 32,399 */
}

/* 4 ms for 5 s, at 300 s and 900 s: under what the path rule counts as a
 * rise (the outlier limit, 5 ms at the least), over the lead's margin
 * (twice the jitter, some 2 ms), and on too few exchanges for the
 * jitter's 99th percentile of the last 512 to reach. Two ways up in a row
 * over the margin are a queue too: 91 of the 68,400 inputs late, the
 * episodes' first two seconds. Read from rises alone, the lead never took
 * it: 271. */
Test(timeline, the_lead_takes_a_queue_shorter_than_a_rise_past_its_margin)
{
    cr_assert_lt(late_under_a_queue(4000, 300, 600, 5, 1200), 150);
}
