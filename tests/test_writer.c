/* tests/test_writer.c - the store thread: rows sent by workers are
 * coalesced per player and written once per flush interval; a load is
 * answered from unflushed rows first; stopping flushes what is queued. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "reader.h"
#include "stats.h"
#include "store.h"
#include "wire.h"
#include "writer.h"

static char path[64];
static ts_metrics_t *metrics;
static scene_stats_t stats;
static ts_log_t *logger;
static scene_writer_t *writer;
static zsock_t *to_store, *inbox;

static void setup(void)
{
    snprintf(path, sizeof path, "/tmp/ts-writer-test-%d/scene.db", (int) getpid());
    metrics = ts_metrics_new(TS_METRICS_ANY_WRITER);
    cr_assert_eq(scene_stats_init(&stats, metrics), 0);
    logger = ts_log_new("test", TS_LOG_ERROR);
    char err[TS_ERR_MAX], ep[64];
    scene_store_t *store = scene_store_new(path, err);
    cr_assert_not_null(store, "%s", err);
    inbox = zsock_new_pull(scene_worker_endpoint(ep, '@', 0));   /* worker 0's inbox */
    writer = scene_writer_new(store, 1, 100, 0, logger, &stats, NULL);
    cr_assert_not_null(writer);
    to_store = zsock_new_push(">" SCENE_EP_STORE);
    cr_assert_not_null(to_store);
}

static void teardown(void)
{
    zsock_destroy(&to_store);
    scene_writer_destroy(&writer);
    cr_assert_null(writer);
    zsock_destroy(&inbox);
    ts_log_destroy(&logger);
    ts_metrics_destroy(&metrics);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf /tmp/ts-writer-test-%d", (int) getpid());
    cr_assert_eq(system(cmd), 0);
}

static void send_rows(const scene_row_t *rows, size_t n)
{
    zmq_send(zsock_resolve(to_store), "R", 1, ZMQ_SNDMORE);
    zmq_send(zsock_resolve(to_store), rows, n * sizeof *rows, 0);
}

static int64_t stored_samples(uint64_t player)
{
    char err[TS_ERR_MAX];
    scene_reader_t *r = scene_reader_new(path, err);
    cr_assert_not_null(r, "%s", err);
    scene_row_t row;
    int64_t v = scene_reader_get(r, player, &row) == 1 ? row.samples : -1;
    scene_reader_destroy(&r);
    return v;
}

Test(writer, coalesces_and_flushes_once_per_interval, .init = setup, .fini = teardown)
{
    for (int64_t s = 1; s <= 50; s++) {   /* fifty updates of the same two players */
        scene_row_t rows[2] = { { .player_id = 1, .samples = s }, { .player_id = 2, .samples = 2 * s } };
        send_rows(rows, 2);
    }
    usleep(350000);
    cr_assert_eq(stored_samples(1), 50, "the last update wins");
    cr_assert_eq(stored_samples(2), 100);
    cr_assert_leq(ts_metric_value(stats.flushes), 4, "one transaction per interval, not per update");
    cr_assert_geq(ts_metric_value(stats.flushes), 1);
}

Test(writer, loads_answer_from_unflushed_rows_first, .init = setup, .fini = teardown)
{
    scene_row_t row = { .player_id = 7, .samples = 9, .srtt_us = 1234 };
    send_rows(&row, 1);
    scene_query_t q = { .worker = 0, .player_id = 7 };
    zmq_send(zsock_resolve(to_store), "Q", 1, ZMQ_SNDMORE);
    zmq_send(zsock_resolve(to_store), &q, sizeof q, 0);
    char kind;
    scene_load_t load;
    zsock_set_rcvtimeo(inbox, 2000);
    cr_assert_eq(zmq_recv(zsock_resolve(inbox), &kind, 1, 0), 1);
    cr_assert_eq(kind, 'L');
    cr_assert_eq(zmq_recv(zsock_resolve(inbox), &load, sizeof load, 0), (int) sizeof load);
    cr_assert_eq(load.player_id, 7);
    cr_assert(load.found);
    cr_assert_eq(load.row.samples, 9);
    q.player_id = 8;   /* nobody */
    zmq_send(zsock_resolve(to_store), "Q", 1, ZMQ_SNDMORE);
    zmq_send(zsock_resolve(to_store), &q, sizeof q, 0);
    cr_assert_eq(zmq_recv(zsock_resolve(inbox), &kind, 1, 0), 1);
    cr_assert_eq(zmq_recv(zsock_resolve(inbox), &load, sizeof load, 0), (int) sizeof load);
    cr_assert_not(load.found);
}

Test(writer, stopping_flushes_everything_queued, .init = setup, .fini = teardown)
{
    scene_row_t rows[500];
    for (int i = 0; i < 500; i++)
        rows[i] = (scene_row_t) { .player_id = (uint64_t) i + 1, .samples = 5 };
    send_rows(rows, 500);
    scene_writer_destroy(&writer);   /* at once: well inside the flush interval */
    cr_assert_eq(stored_samples(1), 5);
    cr_assert_eq(stored_samples(500), 5);
}
