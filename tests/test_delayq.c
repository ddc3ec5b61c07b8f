/* tests/test_delayq.c - the bot's user-space network: messages come out at
 * their delivery time, earliest first, ties in order of entry. */
#include <criterion/criterion.h>
#include <string.h>

#include "delayq.h"

Test(delayq, delivers_by_time_then_by_entry)
{
    delayq_t *q = delayq_new();
    cr_assert_eq(delayq_next(q), INT64_MAX);
    int64_t dues[] = { 50, 10, 30, 10, 20, 40 };
    for (int i = 0; i < 6; i++)
        cr_assert_eq(delayq_push(q, dues[i], (uint32_t) i, 1, dues[i], (const uint8_t *) "m", 1), 0);
    cr_assert_eq(delayq_len(q), 6);
    delayq_item_t it;
    cr_assert_not(delayq_pop_due(q, 9, &it), "nothing due yet");
    uint32_t order[] = { 1, 3, 4, 2, 5, 0 };
    for (int i = 0; i < 6; i++) {
        cr_assert(delayq_pop_due(q, 100, &it));
        cr_assert_eq(it.player, order[i]);
        cr_assert_eq(it.len, 1);
    }
    cr_assert_eq(delayq_len(q), 0);
    delayq_destroy(&q);
    cr_assert_null(q);
}

Test(delayq, keeps_a_copy_and_refuses_oversize)
{
    delayq_t *q = delayq_new();
    uint8_t msg[DELAYQ_BYTES + 1];
    memset(msg, 7, sizeof msg);
    cr_assert_eq(delayq_push(q, 1, 0, 0, 0, msg, sizeof msg), -1);
    cr_assert_eq(delayq_push(q, 1, 0, 0, 0, msg, DELAYQ_BYTES), 0);
    memset(msg, 0, sizeof msg);
    delayq_item_t it;
    cr_assert(delayq_pop_due(q, 1, &it));
    cr_assert_eq(it.bytes[DELAYQ_BYTES - 1], 7);
    for (int i = 0; i < 5000; i++)   /* grows */
        cr_assert_eq(delayq_push(q, 5000 - i, 0, 0, 0, msg, 1), 0);
    int64_t last = 0;
    while (delayq_pop_due(q, 10000, &it)) {
        cr_assert_geq(it.due, last);
        last = it.due;
    }
    delayq_destroy(&q);
}
