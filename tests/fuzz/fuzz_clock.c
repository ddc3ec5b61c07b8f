/* tests/fuzz/fuzz_clock.c - libFuzzer target: the estimator (ticksync_t)
 * fed what a server or a path could send it. The input is a run of
 * operations on one clock: exchanges whose server times are any int64
 * (ticksync_session passes t2 and t3 as they come off the wire, and t1 as
 * the server echoes it), exchanges near a plausible server time, the game
 * asking the time once a frame (which must never run backwards) and a
 * message's age, pauses of up to a day, resyncs, resumes, the game's word
 * that the network changed, a new interval.
 * Nothing may crash, read out of bounds or overflow (UBSan). */
#include <stdint.h>
#include <stdlib.h>

#include "ticksync.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

typedef struct {
    const uint8_t *p;
    size_t left;
} input_t;

/* The next n bytes, big-endian, as an unsigned number (0 once the input ends). */
static uint64_t take(input_t *in, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n && in->left > 0; i++, in->p++, in->left--)
        v = v << 8 | *in->p;
    return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
    ticksync_t *clock = ticksync_new(NULL);
    if (!clock)
        abort();
    input_t in = { data, len };
    int64_t local = 1000000, shown = INT64_MIN;
    while (in.left > 0) {
        uint8_t op = (uint8_t) take(&in, 1);
        switch (op % 6) {
        case 0: {   /* the server's times as sent */
            int64_t rtt = (int64_t) take(&in, 3), t2 = (int64_t) take(&in, 8), t3 = (int64_t) take(&in, 8);
            int64_t t1 = local;
            local += rtt;
            ticksync_sent(clock, t1);
            ticksync_sample(clock, t1, t2, t3, local);
            break;
        }
        case 1: {   /* near a plausible server time: an offset of ±2^31 µs, a turnaround, a way up */
            int64_t rtt = (int64_t) take(&in, 3), offset = (int64_t) take(&in, 4) - 0x80000000LL;
            int64_t turn = (int64_t) take(&in, 2), up = (int64_t) take(&in, 2) % (rtt + 1);
            int64_t t1 = local;
            local += rtt + turn;
            ticksync_sample(clock, t1, t1 + offset + up, t1 + offset + up + turn, local);
            break;
        }
        case 2: {   /* every time as sent: a t1 the server echoes wrong, a game's own t4 */
            int64_t t1 = (int64_t) take(&in, 8), t2 = (int64_t) take(&in, 8), t3 = (int64_t) take(&in, 8);
            ticksync_sample(clock, t1, t2, t3, (int64_t) take(&in, 8));
            break;
        }
        case 3: {   /* a frame */
            local += (int64_t) take(&in, 2);
            int64_t now = ticksync_now(clock, local);
            if (now < shown)
                abort();   /* the game's time ran backwards */
            shown = now;
            (void) ticksync_expected_error(clock, local);
            (void) ticksync_error_bound(clock, local);
            (void) ticksync_offset(clock, local);
            (void) ticksync_message_age(clock, (int64_t) take(&in, 8), local);
            break;
        }
        case 4:   /* a pause */
            local += (int64_t) (take(&in, 5) % 86400000000ULL);
            break;
        default:
            if (op & 0x10)
                ticksync_resume(clock);
            else if (op & 0x40)
                ticksync_path_changed(clock);
            else if (op & 0x20)
                ticksync_set_interval(clock, (int64_t) take(&in, 4));
            else
                ticksync_resync(clock);
            (void) ticksync_next_sync(clock);
            (void) ticksync_frequency(clock);
            (void) ticksync_jitter(clock);
            break;
        }
    }
    ticksync_destroy(&clock);
    return 0;
}
