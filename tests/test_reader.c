/* tests/test_reader.c - the admin API's read side of a store: one player,
 * the best and worst by srtt, and the shard's summary with its delay
 * percentiles, a player's history, read while the store is open for
 * writing. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "reader.h"
#include "store.h"

static char path[64];
static scene_store_t *store;
static scene_reader_t *reader;

static void setup(void)
{
    snprintf(path, sizeof path, "/tmp/ts-reader-test-%d/scene.db", (int) getpid());
    char err[TS_ERR_MAX];
    store = scene_store_new(path, err);
    cr_assert_not_null(store, "%s", err);
    /* players 1..100: srtt 1..100 ms; 101 never measured; 1..10 online */
    scene_row_t rows[101];
    for (int i = 0; i < 101; i++)
        rows[i] = (scene_row_t) { .player_id = (uint64_t) i + 1, .srtt_us = i < 100 ? 1000 * (i + 1) : 0,
                                  .samples = i < 100 ? 3 : 0, .invalid = 1, .lost = i == 0, .online = i < 10 };
    cr_assert_eq(scene_store_put(store, rows, 101, err), 0, "%s", err);
    reader = scene_reader_new(path, err);
    cr_assert_not_null(reader, "%s", err);
}

static void teardown(void)
{
    scene_reader_destroy(&reader);
    cr_assert_null(reader);
    scene_store_destroy(&store);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf /tmp/ts-reader-test-%d", (int) getpid());
    cr_assert_eq(system(cmd), 0);
}

Test(reader, one_player, .init = setup, .fini = teardown)
{
    scene_row_t r;
    cr_assert_eq(scene_reader_get(reader, 42, &r), 1);
    cr_assert_eq(r.srtt_us, 42000);
    cr_assert_eq(scene_reader_get(reader, 4242, &r), 0);
    cr_assert(scene_reader_ok(reader));
}

Test(reader, best_and_worst_by_srtt_of_the_measured, .init = setup, .fini = teardown)
{
    scene_row_t rows[5];
    cr_assert_eq(scene_reader_top(reader, true, rows, 5), 5);
    cr_assert_eq(rows[0].player_id, 100);
    cr_assert_eq(rows[4].player_id, 96);
    cr_assert_eq(scene_reader_top(reader, false, rows, 5), 5);
    cr_assert_eq(rows[0].player_id, 1, "101, never measured, is not the best");
    cr_assert_eq(rows[1].player_id, 2);
}

Test(reader, summary_counts_and_percentiles, .init = setup, .fini = teardown)
{
    scene_summary_t s;
    cr_assert_eq(scene_reader_summary(reader, &s), 0);
    cr_assert_eq(s.known, 101);
    cr_assert_eq(s.online, 10);
    cr_assert_eq(s.measured, 100);
    cr_assert_eq(s.samples, 300);
    cr_assert_eq(s.invalid, 101);
    cr_assert_eq(s.lost, 1);
    cr_assert_eq(s.delay_p50_us, 25000, "srtt 50 ms / 2");
    cr_assert_eq(s.delay_p90_us, 45000);
    cr_assert_eq(s.delay_p99_us, 49500);
    cr_assert_eq(s.delay_max_us, 50000);
    /* a write after the reader opened is seen at the next query */
    char err[TS_ERR_MAX];
    scene_row_t late = { .player_id = 500, .srtt_us = 1000000, .samples = 1, .online = 1 };
    cr_assert_eq(scene_store_put(store, &late, 1, err), 0);
    cr_assert_eq(scene_reader_summary(reader, &s), 0);
    cr_assert_eq(s.known, 102);
    cr_assert_eq(s.delay_max_us, 500000);
}

Test(reader, a_player_s_history_in_a_range_oldest_first, .init = setup, .fini = teardown)
{
    /* steps of 60 s from t = 0 to 590 s; players 1..50 in every step, player
     * 7 only in the even ones, and player 8 once, with another step size */
    enum { STEPS = 10, STEP = 60000000 };
    scene_history_row_t h[STEPS * 50 + 1];
    size_t n = 0;
    for (int k = 0; k < STEPS; k++)
        for (int p = 1; p <= 50; p++)
            if (p != 7 || k % 2 == 0)
                h[n++] = (scene_history_row_t) { .player_id = (uint64_t) p, .t_us = (int64_t) k * STEP,
                                                  .exchanges = 10 * p + k, .rtt_p50_us = 1000 * p };
    h[n++] = (scene_history_row_t) { .player_id = 8, .t_us = 5 * STEP + 30000000, .exchanges = 1 };
    char err[TS_ERR_MAX];
    cr_assert_eq(scene_store_put_all(store, NULL, 0, h, n, err), 0, "%s", err);

    scene_history_row_t got[32];
    cr_assert_eq(scene_reader_history(reader, 3, 0, (int64_t) STEPS * STEP, got, 32), STEPS);
    for (int k = 0; k < STEPS; k++) {
        cr_assert_eq(got[k].t_us, (int64_t) k * STEP, "oldest first");
        cr_assert_eq(got[k].player_id, 3);
        cr_assert_eq(got[k].exchanges, 30 + k, "its own row, not a neighbour's");
    }
    /* [from, to): a step starting at from is in, one starting at to is out */
    cr_assert_eq(scene_reader_history(reader, 3, 2 * STEP, 5 * STEP, got, 32), 3);
    cr_assert_eq(got[0].t_us, 2 * STEP);
    cr_assert_eq(got[2].t_us, 4 * STEP);
    cr_assert_eq(scene_reader_history(reader, 3, 2 * STEP + 1, 5 * STEP + 1, got, 32), 3);
    cr_assert_eq(got[0].t_us, 3 * STEP);
    /* steps the player missed are skipped, not made up */
    cr_assert_eq(scene_reader_history(reader, 7, 0, (int64_t) STEPS * STEP, got, 32), STEPS / 2);
    cr_assert_eq(got[1].t_us, 2 * STEP);
    /* a step of its own size (a scene restarted with another step) */
    cr_assert_eq(scene_reader_history(reader, 8, 0, (int64_t) STEPS * STEP, got, 32), STEPS + 1);
    cr_assert_eq(got[6].t_us, 5 * STEP + 30000000);
    cr_assert_eq(got[6].exchanges, 1);
    cr_assert_eq(got[7].t_us, 6 * STEP);
    /* at most max, the oldest */
    cr_assert_eq(scene_reader_history(reader, 3, 0, (int64_t) STEPS * STEP, got, 4), 4);
    cr_assert_eq(got[3].t_us, 3 * STEP);
    cr_assert_eq(scene_reader_history(reader, 9999, 0, (int64_t) STEPS * STEP, got, 32), 0, "no such player");
    cr_assert_eq(scene_reader_history(reader, 3, 5 * STEP, 5 * STEP, got, 32), 0, "an empty range");
}
