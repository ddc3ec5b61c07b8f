/* lib/idkey.c - see idkey.h. */
#include "idkey.h"

#include <stdint.h>

#include "shard.h"

size_t ts_idkey_hash(const void *key)
{
    return (size_t) ts_shard_mix((uint64_t) (uintptr_t) key);
}

int ts_idkey_cmp(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t) a, y = (uintptr_t) b;
    return x < y ? -1 : x > y;
}
