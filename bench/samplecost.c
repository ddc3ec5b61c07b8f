/* bench/samplecost.c - ticksync-samplecost: what one exchange costs the
 * client's clock. Feeds ticksync_sample the exchanges of a steady path
 * (20 ms each way, 2 ms of exponential jitter, a clock 20 ppm fast, one
 * exchange a second) and asks ticksync_now once between them, as a game
 * would; prints the CPU time a sample, the best of --rounds rounds.
 *   ticksync-samplecost [--samples N] [--rounds R] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "prng.h"
#include "ticksync.h"

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

/* One round: a fresh clock fed n exchanges; the CPU seconds they took. */
static double round_s(long n, uint64_t seed, int64_t *sink)
{
    ticksync_t *ts = ticksync_new(NULL);
    if (!ts)
        return -1;
    uint64_t rng = seed;
    double started = cpu_s();
    for (long i = 0; i < n; i++) {
        double t = (double) i * 1e6;   /* true time, µs */
        double up = 20000 - 2000 * log(1 - ts_prng_uniform(&rng));
        double down = 20000 - 2000 * log(1 - ts_prng_uniform(&rng));
        int64_t t1 = (int64_t) llround(t * (1 + 20e-6));
        int64_t t2 = (int64_t) llround(t + up), t3 = t2 + 50;
        int64_t t4 = (int64_t) llround((t + up + 50 + down) * (1 + 20e-6));
        ticksync_sent(ts, t1);
        ticksync_sample(ts, t1, t2, t3, t4);
        *sink += ticksync_now(ts, t4 + 1000);
    }
    double took = cpu_s() - started;
    ticksync_destroy(&ts);
    return took;
}

int main(int argc, char **argv)
{
    long samples = 200000, rounds = 3;
    for (int i = 1; i + 1 < argc; i += 2) {
        long v = strtol(argv[i + 1], NULL, 10);
        if (strcmp(argv[i], "--samples") == 0 && v > 0)
            samples = v;
        else if (strcmp(argv[i], "--rounds") == 0 && v > 0)
            rounds = v;
        else {
            fprintf(stderr, "usage: ticksync-samplecost [--samples N] [--rounds R]\n");
            return 2;
        }
    }
    int64_t sink = 0;
    double best = INFINITY;
    for (long r = 0; r < rounds; r++) {
        double s = round_s(samples, 12345 + (uint64_t) r, &sink);
        if (s < 0)
            return 1;
        best = s < best ? s : best;
    }
    printf("ticksync_sample + ticksync_now: %.2f us a sample (best of %ld rounds of %ld samples)%s\n",
           best / (double) samples * 1e6, rounds, samples, sink == 42 ? "." : "");
    return 0;
}
