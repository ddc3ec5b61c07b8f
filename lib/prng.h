/* lib/prng.h - a small deterministic random source (splitmix64) for the
 * simulations: the bot's injected delays, the accuracy benchmark's traces
 * and the estimator's tests. Not for anything secret (tokens and keys come
 * from libsodium). Header-only: the state is the caller's uint64_t. */
#ifndef TS_LIB_PRNG_H
#define TS_LIB_PRNG_H

#include <stdint.h>

static inline uint64_t ts_prng_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static inline double ts_prng_uniform(uint64_t *state)
{
    return (double) (ts_prng_next(state) >> 11) / 9007199254740992.0;
}

#endif
