/* examples/fixed_tick.c - a fixed-tick game loop on libticksync's timeline,
 * against a real ticksync-gate.
 *
 *   ticksync-example-ticks [HOST:PORT] [SECONDS] [PLAYER_ID]
 *
 * The server simulates at 60 Hz from the Unix epoch. Every frame (60 Hz)
 * the game asks the clock which tick the server is on, which tick to stamp
 * this frame's input for, at what server time to draw the other players,
 * and how fast to run its own simulation, which starts where the server
 * is and settles on the input tick. Once a second it prints what it saw;
 * at the end it says whether its simulation settled ahead of the server
 * and whether any answer ever went back. Exit 0 when all is well. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <ticksync.h>

#define TICK_US  16667   /* the server's 60 Hz */
#define FRAME_US 16667   /* the game's frames */

static void sleep_until(int64_t local)
{
    int64_t wait = local - ticksync_local_us();
    if (wait > 0)
        nanosleep(&(struct timespec) { .tv_sec = wait / 1000000, .tv_nsec = (long) (wait % 1000000) * 1000 }, NULL);
}

int main(int argc, char **argv)
{
    const char *server = argc > 1 ? argv[1] : "127.0.0.1:7700";
    int seconds = argc > 2 ? atoi(argv[2]) : 10;
    uint64_t player = argc > 3 ? strtoull(argv[3], NULL, 10) : 4242;
    char err[TICKSYNC_ERR_MAX];
    ticksync_client_options_t o = { .server = server, .player_id = player, .udp = true };
    ticksync_client_t *c = ticksync_client_new(&o, err);
    if (!c) {
        fprintf(stderr, "ticksync-example-ticks: %s\n", err);
        return 1;
    }
    ticksync_ticks_t ticks;
    ticksync_ticks_default(&ticks, TICK_US, 0);
    double sim = -1;                       /* the game's own simulation, in ticks */
    double mine = 0;                       /* where it is against the input tick, this frame */
    int64_t last_input = INT64_MIN, last_render = INT64_MIN, frame = ticksync_local_us();
    int64_t end = frame + (int64_t) seconds * 1000000, next_print = frame + 1000000;
    int went_back = 0;
    for (; frame < end; frame += FRAME_US) {
        sleep_until(frame);
        ticksync_client_run(c, 0);         /* replies in, SYNCs out, reconnects */
        ticksync_t *clock = ticksync_client_clock(c);
        if (!ticksync_synced(clock))
            continue;
        int64_t local = ticksync_local_us();
        double frac;
        int64_t server_tick = ticksync_server_tick(clock, &ticks, local, &frac);
        int64_t input_tick = ticksync_input_tick(clock, &ticks, local);      /* stamp this frame's input */
        int64_t render_at = ticksync_render_time(clock, &ticks, local);     /* draw the others here */
        if (sim < 0)
            sim = (double) server_tick + frac;   /* start where the server is: behind the input tick */
        double scale = ticksync_time_scale(clock, &ticks, local, (int64_t) floor(sim), sim - floor(sim));
        mine = sim - (double) input_tick;
        sim += scale * FRAME_US / TICK_US;     /* the game's simulation, at that speed, to the next frame */
        went_back += input_tick < last_input || render_at < last_render;
        last_input = input_tick;
        last_render = render_at;
        if (local >= next_print) {
            next_print += 1000000;
            printf("server tick %" PRId64 " | input tick +%" PRId64 " | my tick %+.2f | render %.1f ms behind | "
                   "scale %.3f | jitter %.2f ms\n", server_tick, input_tick - server_tick,
                   mine, (double) (ticksync_now(clock, local) - render_at) / 1000, scale,
                   (double) ticksync_jitter(clock) / 1000);
        }
    }
    ticksync_t *clock = ticksync_client_clock(c);
    /* On the input tick: the simulation converges on where the input tick
     * is, and since frames and ticks are both 60 Hz, where in its tick that
     * is stays the start's phase; near the tick's edge a frame's read
     * carries it across (+1.01 seen once, under a loaded suite), so a
     * quarter tick either side of the tick still counts. */
    bool settled = sim >= 0 && mine > -0.25 && mine < 1.25;
    bool ahead = last_input > ticksync_server_tick(clock, &ticks, ticksync_local_us(), NULL);
    printf("settled on the input tick: %s; inputs ahead of the server: %s; answers that went back: %d\n",
           settled ? "yes" : "no", ahead ? "yes" : "no", went_back);
    ticksync_client_destroy(&c);
    return settled && ahead && went_back == 0 ? 0 : 1;
}
