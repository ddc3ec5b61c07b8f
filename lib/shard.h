/* lib/shard.h - which scene shard owns a player: jump consistent hash
 * (Lamping & Veach, 2014) of player_id over the shard count. The gate routes
 * with it and ticksync-admin asks the same shard, so they must agree. */
#ifndef TS_LIB_SHARD_H
#define TS_LIB_SHARD_H

#include <stdint.h>

/* Shard index in [0, shards). shards must be >= 1. */
int ts_shard_of(uint64_t player_id, int shards);

/* A well-mixed 64-bit hash of player_id (splitmix64's finaliser), for
 * spreading players over worker threads independently of the shard. */
uint64_t ts_shard_mix(uint64_t player_id);

#endif
