/* tests/test_health.c - the scene's own health: a failing store is seen
 * with its reason and rows, a good flush clears it, and a reader on
 * another thread never sees a torn reason. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <string.h>

#include "health.h"

Test(health, a_failing_store_is_seen_with_its_reason_until_a_good_flush)
{
    scene_health_t *h = scene_health_new();
    cr_assert_not_null(h);
    char why[128];
    int64_t rows = -1;
    cr_assert_not(scene_health_store_failing(h));
    cr_assert_not(scene_health_store_why(h, why, sizeof why, &rows));
    cr_assert_str_empty(why);
    cr_assert_eq(rows, 0);
    scene_health_store_failed(h, "database or disk is full (No space left on device)", 1500);
    cr_assert(scene_health_store_failing(h));
    cr_assert(scene_health_store_why(h, why, sizeof why, &rows));
    cr_assert_str_eq(why, "database or disk is full (No space left on device)");
    cr_assert_eq(rows, 1500);
    scene_health_store_why(h, why, 9, &rows);
    cr_assert_str_eq(why, "database", "cut to the buffer");
    scene_health_store_ok(h);
    cr_assert_not(scene_health_store_why(h, why, sizeof why, &rows));
    scene_health_destroy(&h);
    cr_assert_null(h);
    scene_health_destroy(&h);
}

static void *flip(void *arg)
{
    scene_health_t *h = arg;
    for (int i = 0; i < 20000; i++)
        scene_health_store_failed(h, i % 2 ? "bbbbbbbbbbbbbbbbbbbb" : "aaaaaaaaaaaaaaaaaaaa", i);
    return NULL;
}

Test(health, a_reader_on_another_thread_sees_whole_reasons)
{
    scene_health_t *h = scene_health_new();
    pthread_t t;
    pthread_create(&t, NULL, flip, h);
    char why[64];
    int64_t rows;
    for (int i = 0; i < 20000; i++)
        if (scene_health_store_why(h, why, sizeof why, &rows))
            cr_assert(strcmp(why, "aaaaaaaaaaaaaaaaaaaa") == 0 || strcmp(why, "bbbbbbbbbbbbbbbbbbbb") == 0, "%s", why);
    pthread_join(t, NULL);
    scene_health_destroy(&h);
}

Test(health, the_gates_heard_and_lost_are_kept_whole)
{
    scene_health_t *h = scene_health_new();
    scene_health_gates_t g = scene_health_gates(h);
    cr_assert_eq(g.gates + g.lost + g.last_lost_us, 0, "none yet");
    scene_health_set_gates(h, &(scene_health_gates_t) { .gates = 2 });
    scene_health_set_gates(h, &(scene_health_gates_t) { .gates = 1, .lost = 1, .last_lost_us = 1234 });
    g = scene_health_gates(h);
    cr_assert_eq(g.gates, 1);
    cr_assert_eq(g.lost, 1);
    cr_assert_eq(g.last_lost_us, 1234);
    scene_health_destroy(&h);
}
