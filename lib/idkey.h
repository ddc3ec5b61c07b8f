/* lib/idkey.h - a uint64 id (player id, connection id) used directly as the
 * key of a czmq zhashx, with no key copy: pass these to
 * zhashx_set_key_hasher / zhashx_set_key_comparator, and NULL as the key
 * duplicator and destructor. */
#ifndef TS_LIB_IDKEY_H
#define TS_LIB_IDKEY_H

#include <stddef.h>

size_t ts_idkey_hash(const void *key);
int    ts_idkey_cmp(const void *a, const void *b);

#endif
