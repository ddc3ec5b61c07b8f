/* scene/reader.c - see reader.h. */
#include "reader.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"

struct scene_reader_t {
    sqlite3      *db;
    sqlite3_stmt *get, *worst, *best, *totals, *nth, *ping;
};

static const char *const sql[] = {
    "SELECT " SCENE_STORE_COLUMNS " FROM player_latency WHERE player_id = ?",
    "SELECT " SCENE_STORE_COLUMNS " FROM player_latency WHERE samples > 0 ORDER BY srtt_us DESC, player_id LIMIT ?",
    "SELECT " SCENE_STORE_COLUMNS " FROM player_latency WHERE samples > 0 ORDER BY srtt_us ASC, player_id LIMIT ?",
    "SELECT count(*), total(online), total(samples > 0), total(samples), total(invalid), total(lost)"
    " FROM player_latency",
    "SELECT srtt_us FROM player_latency WHERE samples > 0 ORDER BY srtt_us LIMIT 1 OFFSET ?",
    "SELECT 1 FROM player_latency LIMIT 1",
};

scene_reader_t *scene_reader_new(const char *path, char *err)
{
    scene_reader_t *self = calloc(1, sizeof *self);
    if (!self) {
        snprintf(err, 256, "out of memory");
        return NULL;
    }
    sqlite3_stmt **st[] = { &self->get, &self->worst, &self->best, &self->totals, &self->nth, &self->ping };
    int rc = sqlite3_open_v2(path, &self->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc == SQLITE_OK)
        sqlite3_busy_timeout(self->db, 1000);
    for (size_t i = 0; rc == SQLITE_OK && i < sizeof st / sizeof st[0]; i++)
        rc = sqlite3_prepare_v2(self->db, sql[i], -1, st[i], NULL);
    if (rc != SQLITE_OK) {
        snprintf(err, 256, "cannot read database '%s': %s", path,
                 self->db ? sqlite3_errmsg(self->db) : sqlite3_errstr(rc));
        scene_reader_destroy(&self);
    }
    return self;
}

void scene_reader_destroy(scene_reader_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    scene_reader_t *self = *self_p;
    sqlite3_finalize(self->get);
    sqlite3_finalize(self->worst);
    sqlite3_finalize(self->best);
    sqlite3_finalize(self->totals);
    sqlite3_finalize(self->nth);
    sqlite3_finalize(self->ping);
    sqlite3_close(self->db);
    free(self);
    *self_p = NULL;
}

int scene_reader_get(scene_reader_t *self, uint64_t player_id, scene_row_t *row)
{
    sqlite3_bind_int64(self->get, 1, (sqlite3_int64) player_id);
    int rc = sqlite3_step(self->get);
    if (rc == SQLITE_ROW)
        scene_store_row_of(self->get, row);
    sqlite3_reset(self->get);
    return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

int scene_reader_top(scene_reader_t *self, bool worst, scene_row_t *rows, int max)
{
    sqlite3_stmt *st = worst ? self->worst : self->best;
    sqlite3_bind_int(st, 1, max);
    int n = 0, rc;
    while (n < max && (rc = sqlite3_step(st)) == SQLITE_ROW)
        scene_store_row_of(st, &rows[n++]);
    if (n < max && rc != SQLITE_DONE)
        n = -1;
    sqlite3_reset(st);
    return n;
}

/* srtt of the player at rank k (0-based) among the measured, or -1. */
static int64_t srtt_at(scene_reader_t *self, int64_t k)
{
    sqlite3_bind_int64(self->nth, 1, k);
    int64_t v = sqlite3_step(self->nth) == SQLITE_ROW ? sqlite3_column_int64(self->nth, 0) : -1;
    sqlite3_reset(self->nth);
    return v;
}

/* Nearest-rank percentile p (0..100] of n measured players. */
static int64_t delay_pct(scene_reader_t *self, int64_t n, int p)
{
    int64_t rank = (n * p + 99) / 100;
    int64_t srtt = srtt_at(self, rank > 0 ? rank - 1 : 0);
    return srtt < 0 ? -1 : srtt / 2;
}

int scene_reader_summary(scene_reader_t *self, scene_summary_t *out)
{
    memset(out, 0, sizeof *out);
    /* One read transaction, so the totals and the ranks see one flush. */
    if (sqlite3_exec(self->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
        return -1;
    int rc = sqlite3_step(self->totals);
    if (rc == SQLITE_ROW) {
        int64_t *f[] = { &out->known, &out->online, &out->measured, &out->samples, &out->invalid, &out->lost };
        for (int i = 0; i < 6; i++)
            *f[i] = (int64_t) sqlite3_column_double(self->totals, i);
    }
    sqlite3_reset(self->totals);
    if (rc == SQLITE_ROW && out->measured > 0) {
        out->delay_p50_us = delay_pct(self, out->measured, 50);
        out->delay_p90_us = delay_pct(self, out->measured, 90);
        out->delay_p99_us = delay_pct(self, out->measured, 99);
        out->delay_max_us = delay_pct(self, out->measured, 100);
        if (out->delay_p50_us < 0 || out->delay_p90_us < 0 || out->delay_p99_us < 0 || out->delay_max_us < 0)
            rc = SQLITE_ERROR;
    }
    sqlite3_exec(self->db, "COMMIT", NULL, NULL, NULL);
    return rc == SQLITE_ROW ? 0 : -1;
}

bool scene_reader_ok(scene_reader_t *self)
{
    int rc = sqlite3_step(self->ping);
    sqlite3_reset(self->ping);
    return rc == SQLITE_ROW || rc == SQLITE_DONE;
}
