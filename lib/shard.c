/* lib/shard.c - see shard.h. */
#include "shard.h"

#include <assert.h>

int ts_shard_of(uint64_t key, int shards)
{
    assert(shards >= 1);
    int64_t b = -1, j = 0;
    while (j < shards) {
        b = j;
        key = key * 2862933555777941757ULL + 1;
        j = (int64_t) ((double) (b + 1) * ((double) (1LL << 31) / (double) ((key >> 33) + 1)));
    }
    return (int) b;
}

uint64_t ts_shard_mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}
