/* bench/stallprobe.c - how late this machine runs a process that only
 * sleeps: it sleeps 5 ms at a time for SECONDS and prints every wake-up
 * more than 50 ms after the one before, as "seconds-since-start gap-ms".
 * Beside a benchmark it tells a stall of the whole machine (its cores
 * taken by the host, or by more runnable work than they can serve) from
 * one of the program measured.
 *
 *   ticksync-stallprobe SECONDS */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "clock.h"

#define NAP_NS     5000000L
#define LATE_US    50000

int main(int argc, char **argv)
{
    char *end = NULL;
    long seconds = argc == 2 ? strtol(argv[1], &end, 10) : 0;
    if (!end || *end || seconds <= 0) {
        fprintf(stderr, "usage: ticksync-stallprobe SECONDS\n");
        return 2;
    }
    int64_t start = ts_clock_mono_us(), last = start, stop = start + seconds * 1000000;
    long stalls = 0;
    while (last < stop) {
        nanosleep(&(struct timespec) { .tv_nsec = NAP_NS }, NULL);
        int64_t now = ts_clock_mono_us();
        if (now - last > LATE_US) {
            printf("%.1f %.0f\n", (double) (now - start) / 1e6, (double) (now - last) / 1e3);
            fflush(stdout);
            stalls++;
        }
        last = now;
    }
    fprintf(stderr, "ticksync-stallprobe: %ld wake-ups over %d ms late in %ld s\n", stalls, LATE_US / 1000, seconds);
    return 0;
}
