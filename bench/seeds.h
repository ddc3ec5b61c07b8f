/* bench/seeds.h - faithful re-implementations of the client clocks of the
 * articles ticksync grew from (cited by title in docs/DESIGN.md, "Where the
 * ideas come from") and of Mirror's NetworkTime, for bench/accuracy to hold
 * libticksync against.
 *
 *   S0  Unreal's FServerTimeSynchronizer. Drops RTT > 500 ms, takes
 *       a sample only when its RTT is no larger than the smallest so far,
 *       estimates ServerTime + RTT/2, and approaches a new estimate at rate
 *       0.33 of elapsed time.
 *   S1  Blaster. ClientServerDelta = ServerTime + RTT/2 - now, from
 *       the last sample alone.
 *   S2  ESFramework. The down-trip is RTT / (coef + 1) with the
 *       up/down speed coefficient (1 by default); the offset is from the
 *       last sample; message age = standard time - stamp.
 *   S3  a smoothed offset. The one-way delay of the first exchange
 *       is assumed forever; each reply's observed error moves the offset by
 *       a smoothing factor (0.1: the document leaves it open).
 *   Mirror  NetworkTime of the Mirror networking library: RTT and offset
 *       as exponential moving averages over a window of 50, the offset EMA restarted when it leaves the
 *       [now - rtt - server, now - server] bounds of a sample.
 *
 * Each sees what its original saw: the client's send and receive times and
 * one server timestamp (t2 for the seeds, the server's receive time; S3
 * uses t3, "the reply's send time"). All times are µs. */
#ifndef BENCH_SEEDS_H
#define BENCH_SEEDS_H

#include <stdbool.h>
#include <stdint.h>

typedef enum { SEED_S0, SEED_S1, SEED_S2, SEED_S3, SEED_MIRROR, SEEDS } seed_kind_t;

typedef struct {
    seed_kind_t kind;
    bool        synced;
    /* S0 */
    int64_t     latest_rtt, client_time;
    double      estimated, delta;
    /* S1, S2, S3, Mirror: server - local */
    double      offset, one_way;
    /* Mirror */
    double      ema_rtt, ema_offset, offset_min, offset_max;
    int         rtt_n, offset_n;
} seed_t;

void        seed_init(seed_t *s, seed_kind_t kind);
const char *seed_name(seed_kind_t kind);
/* One exchange: local send t1, server receive t2, server send t3, local receive t4. */
void        seed_sample(seed_t *s, int64_t t1, int64_t t2, int64_t t3, int64_t t4);
/* Server time at local time now; 0 before the first sample. */
double      seed_now(const seed_t *s, int64_t now);

#endif
