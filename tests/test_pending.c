/* tests/test_pending.c - the store thread's rows for the next flush: the
 * latest row of each player wins, rows are found by id, come out in id
 * order (and are still found after), and the table grows past its first
 * size and starts empty again after a clear. */
#include <criterion/criterion.h>

#include "pending.h"

static scene_row_t row_of(uint64_t id, int64_t srtt)
{
    return (scene_row_t) { .player_id = id, .srtt_us = srtt };
}

Test(pending, the_latest_row_of_a_player_wins)
{
    scene_pending_t *p = scene_pending_new();
    cr_assert_not_null(p);
    cr_assert_null(scene_pending_get(p, 42));
    scene_row_t a = row_of(42, 100), b = row_of(42, 200), c = row_of(7, 300);
    cr_assert_eq(scene_pending_put(p, &a), 0);
    cr_assert_eq(scene_pending_put(p, &c), 0);
    cr_assert_eq(scene_pending_put(p, &b), 0);
    cr_assert_eq(scene_pending_size(p), 2);
    cr_assert_eq(scene_pending_get(p, 42)->srtt_us, 200);
    cr_assert_eq(scene_pending_get(p, 7)->srtt_us, 300);
    cr_assert_null(scene_pending_get(p, 8));
    scene_pending_destroy(&p);
    cr_assert_null(p);
    scene_pending_destroy(&p);   /* twice: harmless */
}

Test(pending, many_players_in_id_order_then_cleared)
{
    scene_pending_t *p = scene_pending_new();
    enum { N = 50000 };
    /* ids out of order, each written twice: the second row counts */
    for (int round = 0; round < 2; round++)
        for (uint64_t k = 0; k < N; k++) {
            uint64_t id = (k * 7919 + 13) % N + 1;   /* 7919 is prime: a permutation of 1..N */
            scene_row_t r = row_of(id, (int64_t) id * 10 + round);
            cr_assert_eq(scene_pending_put(p, &r), 0);
        }
    cr_assert_eq(scene_pending_size(p), N);
    const scene_row_t *rows = scene_pending_sorted(p);
    size_t n = scene_pending_size(p);
    cr_assert_eq(n, N, "the sort keeps every row");
    for (size_t i = 0; i < n; i++) {
        cr_assert_eq(rows[i].player_id, i + 1, "row %zu", i);
        cr_assert_eq(rows[i].srtt_us, (int64_t) (i + 1) * 10 + 1);
    }
    cr_assert_eq(scene_pending_get(p, 4321)->srtt_us, 43211, "found after the sort");
    scene_row_t again = row_of(4321, 5);
    scene_pending_put(p, &again);
    cr_assert_eq(scene_pending_size(p), N, "the sort kept one row a player");
    scene_pending_clear(p);
    cr_assert_eq(scene_pending_size(p), 0);
    cr_assert_null(scene_pending_get(p, 4321));
    scene_row_t one = row_of(99, 1);
    scene_pending_put(p, &one);
    rows = scene_pending_sorted(p);
    cr_assert_eq(scene_pending_size(p), 1);
    cr_assert_eq(rows[0].player_id, 99);
    scene_pending_destroy(&p);
}

Test(pending, ids_of_any_size_sort_in_order)
{
    scene_pending_t *p = scene_pending_new();
    /* ids that differ in every byte, the top one included, and some alike in all but one */
    const uint64_t ids[] = { UINT64_MAX, 1, 0x0100000000000000u, 0xff, 0x100, 0x8000000000000000u, 0x1234567890abcdefu,
                             0x1234567890abcdeeu, 256 * 256, 2, 0x00ff00ff00ff00ffu, 0x7fffffffffffffffu };
    enum { N = sizeof ids / sizeof ids[0] };
    for (size_t i = 0; i < N; i++) {
        scene_row_t r = row_of(ids[i], (int64_t) i);
        cr_assert_eq(scene_pending_put(p, &r), 0);
    }
    const scene_row_t *rows = scene_pending_sorted(p);
    cr_assert_eq(scene_pending_size(p), N);
    for (size_t i = 1; i < N; i++)
        cr_assert_lt(rows[i - 1].player_id, rows[i].player_id, "rows %zu and %zu", i - 1, i);
    for (size_t i = 0; i < N; i++)
        cr_assert_eq(scene_pending_get(p, ids[i])->srtt_us, (int64_t) i, "id %zu keeps its row", i);
    scene_pending_destroy(&p);
}
