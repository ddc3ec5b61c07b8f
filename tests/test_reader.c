/* tests/test_reader.c - the admin API's read side of a store: one player,
 * the best and worst by srtt, and the shard's summary with its delay
 * percentiles, read while the store is open for writing. */
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
