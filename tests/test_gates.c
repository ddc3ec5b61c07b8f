/* tests/test_gates.c - the gates a shard hears from: a new gate is told
 * apart from a known one, a gate silent for the bound is lost once (and
 * only it), and one heard from again after that is new again. */
#include <criterion/criterion.h>
#include <string.h>

#include "gates.h"

#define LOST 2000000

static const uint8_t a[] = "gate-a", b[] = "gate-b";

Test(gates, a_gate_is_new_once_then_known)
{
    scene_gates_t *g = scene_gates_new(LOST);
    cr_assert_not_null(g);
    cr_assert_eq(scene_gates_seen(g, a, sizeof a, 0), 1);
    cr_assert_eq(scene_gates_seen(g, a, sizeof a, 100), 0);
    cr_assert_eq(scene_gates_seen(g, b, sizeof b, 200), 1);
    cr_assert_eq(scene_gates_seen(g, a, sizeof a, 300), 0);
    cr_assert_eq(scene_gates_count(g), 2);
    scene_gates_destroy(&g);
    cr_assert_null(g);
    scene_gates_destroy(&g);
}

Test(gates, only_the_silent_gate_is_lost_and_only_once)
{
    scene_gates_t *g = scene_gates_new(LOST);
    uint8_t id[SCENE_GATE_ID_MAX];
    scene_gates_seen(g, a, sizeof a, 0);
    scene_gates_seen(g, b, sizeof b, 0);
    scene_gates_seen(g, b, sizeof b, LOST - 1);
    cr_assert_eq(scene_gates_next_lost(g, LOST - 1, id), 0, "a was heard LOST - 1 ago: not yet");
    size_t n = scene_gates_next_lost(g, LOST, id);
    cr_assert_eq(n, sizeof a);
    cr_assert_eq(memcmp(id, a, n), 0);
    cr_assert_eq(scene_gates_next_lost(g, LOST, id), 0, "b was heard 1 us ago");
    cr_assert_eq(scene_gates_count(g), 1);
    cr_assert_eq(scene_gates_seen(g, a, sizeof a, LOST + 1), 1, "back after being lost: a new gate");
    cr_assert_eq(scene_gates_next_lost(g, 3 * LOST, id), sizeof b);
    cr_assert_eq(scene_gates_next_lost(g, 3 * LOST, id), sizeof a);
    cr_assert_eq(scene_gates_next_lost(g, 3 * LOST, id), 0);
    scene_gates_destroy(&g);
}

Test(gates, many_gates_and_bad_ids)
{
    scene_gates_t *g = scene_gates_new(LOST);
    uint8_t id[SCENE_GATE_ID_MAX + 1] = { 0 };
    cr_assert_eq(scene_gates_seen(g, id, 0, 0), -1);
    cr_assert_eq(scene_gates_seen(g, id, sizeof id, 0), -1);
    for (int i = 0; i < 100; i++) {
        id[0] = (uint8_t) i;
        cr_assert_eq(scene_gates_seen(g, id, 5, i), 1);
    }
    for (int i = 0; i < 100; i++) {
        id[0] = (uint8_t) i;
        cr_assert_eq(scene_gates_seen(g, id, 5, 1000 + i), 0);
    }
    cr_assert_eq(scene_gates_count(g), 100);
    size_t lost = 0;
    while (scene_gates_next_lost(g, LOST + 2000, id))
        lost++;
    cr_assert_eq(lost, 100);
    scene_gates_destroy(&g);
}
