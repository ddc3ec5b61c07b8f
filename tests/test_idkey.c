/* tests/test_idkey.c - uint64 ids as zhashx keys without copies: distinct
 * ids stay distinct, and a table finds them again. */
#include <criterion/criterion.h>
#include <czmq.h>

#include "idkey.h"

Test(idkey, ids_are_keys)
{
    cr_assert_eq(ts_idkey_cmp((void *) (uintptr_t) 5, (void *) (uintptr_t) 5), 0);
    cr_assert_neq(ts_idkey_cmp((void *) (uintptr_t) 5, (void *) (uintptr_t) 6), 0);
    zhashx_t *h = zhashx_new();
    zhashx_set_key_hasher(h, ts_idkey_hash);
    zhashx_set_key_comparator(h, ts_idkey_cmp);
    zhashx_set_key_duplicator(h, NULL);
    zhashx_set_key_destructor(h, NULL);
    for (uintptr_t id = 1; id <= 10000; id++)
        cr_assert_eq(zhashx_insert(h, (void *) (id << 32 | id), (void *) id), 0);
    for (uintptr_t id = 1; id <= 10000; id++)
        cr_assert_eq((uintptr_t) zhashx_lookup(h, (void *) (id << 32 | id)), id);
    cr_assert_null(zhashx_lookup(h, (void *) (uintptr_t) 1));
    zhashx_destroy(&h);
}
