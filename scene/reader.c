/* scene/reader.c - see reader.h. */
#include "reader.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "err.h"

enum { GET, WORST, BEST, TOTALS, SRTTS, PING, LAGGING, SPEEDING, HISTORY, NSQL };   /* the statements, in the order of sql[] */

struct scene_reader_t {
    sqlite3      *db;
    sqlite3_stmt *st[NSQL];
};

static const char *const sql[NSQL] = {
    "SELECT " SCENE_DB_COLUMNS " FROM player_latency WHERE player_id = ?",
    "SELECT " SCENE_DB_COLUMNS " FROM player_latency WHERE samples > 0 ORDER BY srtt_us DESC, player_id LIMIT ?",
    "SELECT " SCENE_DB_COLUMNS " FROM player_latency WHERE samples > 0 ORDER BY srtt_us ASC, player_id LIMIT ?",
    "SELECT count(*), total(online), total(samples > 0), total(samples), total(invalid), total(lost)"
    " FROM player_latency",
    "SELECT srtt_us FROM player_latency WHERE samples > 0",
    "SELECT 1 FROM player_latency LIMIT 1",
    "SELECT " SCENE_DB_COLUMNS " FROM player_latency WHERE lag_flag != 0 ORDER BY srtt_us DESC, player_id LIMIT ?",
    "SELECT " SCENE_DB_COLUMNS " FROM player_latency WHERE speed_flag != 0"
    " ORDER BY abs(clock_rate_ppm) DESC, player_id LIMIT ?",
    /* The history is ordered by step, then player (scene/store.c): walk the
     * steps in the range, one seek each, and look the player up in each */
    "WITH RECURSIVE step(t) AS ("
    " SELECT min(t_us) FROM player_latency_history WHERE t_us >= ?2 AND t_us < ?3"
    " UNION ALL SELECT (SELECT min(t_us) FROM player_latency_history WHERE t_us > step.t AND t_us < ?3)"
    " FROM step WHERE step.t IS NOT NULL)"
    " SELECT h.t_us, h.exchanges, h.lost, h.rtt_min_us, h.rtt_p50_us, h.rtt_max_us, h.jitter_us"
    " FROM step CROSS JOIN player_latency_history AS h ON h.t_us = step.t AND h.player_id = ?1"
    " ORDER BY h.t_us LIMIT ?4",
};

scene_reader_t *scene_reader_new(const char *path, char *err)
{
    scene_reader_t *self = calloc(1, sizeof *self);
    if (!self) {
        snprintf(err, TS_ERR_MAX, "out of memory");
        return NULL;
    }
    if (scene_db_open(&self->db, path, SQLITE_OPEN_READONLY, NULL, NULL, sql, self->st, NSQL, "read", err) < 0) {
        free(self);
        return NULL;
    }
    return self;
}

void scene_reader_destroy(scene_reader_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    scene_db_close(&(*self_p)->db, (*self_p)->st, NSQL);
    free(*self_p);
    *self_p = NULL;
}

int scene_reader_get(scene_reader_t *self, uint64_t player_id, scene_row_t *row)
{
    return scene_db_get_row(self->st[GET], player_id, row);
}

/* Up to max rows of statement st (one parameter: the limit). */
static int rows_of(sqlite3_stmt *st, scene_row_t *rows, int max)
{
    sqlite3_bind_int(st, 1, max);
    int n = 0, rc;
    while (n < max && (rc = sqlite3_step(st)) == SQLITE_ROW)
        scene_db_row_of(st, &rows[n++]);
    if (n < max && rc != SQLITE_DONE)
        n = -1;
    sqlite3_reset(st);
    return n;
}

int scene_reader_top(scene_reader_t *self, bool worst, scene_row_t *rows, int max)
{
    return rows_of(worst ? self->st[WORST] : self->st[BEST], rows, max);
}

int scene_reader_flagged(scene_reader_t *self, bool speed, scene_row_t *rows, int max)
{
    return rows_of(speed ? self->st[SPEEDING] : self->st[LAGGING], rows, max);
}

static int by_value(const void *a, const void *b)
{
    int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;
    return (x > y) - (x < y);
}

/* The measured players' srtt, sorted: one scan of the table (it has no
 * index on srtt_us, which would cost the writer more than this costs). */
static int64_t *srtts_sorted(scene_reader_t *self, int64_t *n)
{
    int64_t *v = NULL;
    size_t have = 0, size = 0;
    int rc;
    while ((rc = sqlite3_step(self->st[SRTTS])) == SQLITE_ROW) {
        if (have == size) {
            size = size ? size * 2 : 4096;
            int64_t *grown = realloc(v, size * sizeof *v);
            if (!grown)
                break;
            v = grown;
        }
        v[have++] = sqlite3_column_int64(self->st[SRTTS], 0);
    }
    sqlite3_reset(self->st[SRTTS]);
    if (rc != SQLITE_DONE) {
        free(v);
        return NULL;
    }
    qsort(v, have, sizeof *v, by_value);
    *n = (int64_t) have;
    return v;
}

/* Nearest-rank percentile p (0..100] of the n sorted srtts, as a one-way delay. */
static int64_t delay_pct(const int64_t *sorted, int64_t n, int p)
{
    int64_t rank = (n * p + 99) / 100;
    return sorted[rank > 0 ? rank - 1 : 0] / 2;
}

int scene_reader_summary(scene_reader_t *self, scene_summary_t *out)
{
    memset(out, 0, sizeof *out);
    /* One read transaction, so the totals and the ranks see one flush. */
    if (sqlite3_exec(self->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
        return -1;
    int rc = sqlite3_step(self->st[TOTALS]);
    if (rc == SQLITE_ROW) {
        int64_t *f[] = { &out->known, &out->online, &out->measured, &out->samples, &out->invalid, &out->lost };
        for (int i = 0; i < 6; i++)
            *f[i] = (int64_t) sqlite3_column_double(self->st[TOTALS], i);
    }
    sqlite3_reset(self->st[TOTALS]);
    if (rc == SQLITE_ROW && out->measured > 0) {
        int64_t n = 0, *sorted = srtts_sorted(self, &n);
        if (sorted && n > 0) {
            out->delay_p50_us = delay_pct(sorted, n, 50);
            out->delay_p90_us = delay_pct(sorted, n, 90);
            out->delay_p99_us = delay_pct(sorted, n, 99);
            out->delay_max_us = delay_pct(sorted, n, 100);
        } else {
            rc = SQLITE_ERROR;
        }
        free(sorted);
    }
    sqlite3_exec(self->db, "COMMIT", NULL, NULL, NULL);
    return rc == SQLITE_ROW ? 0 : -1;
}

bool scene_reader_ok(scene_reader_t *self)
{
    int rc = sqlite3_step(self->st[PING]);
    sqlite3_reset(self->st[PING]);
    return rc == SQLITE_ROW || rc == SQLITE_DONE;
}

int scene_reader_history(scene_reader_t *self, uint64_t player_id, int64_t from_us, int64_t to_us,
                         scene_history_row_t *rows, int max)
{
    sqlite3_stmt *st = self->st[HISTORY];
    sqlite3_bind_int64(st, 1, (sqlite3_int64) player_id);
    sqlite3_bind_int64(st, 2, from_us);
    sqlite3_bind_int64(st, 3, to_us);
    sqlite3_bind_int(st, 4, max);
    int n = 0, rc;
    while (n < max && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t *f[] = { &rows[n].t_us, &rows[n].exchanges, &rows[n].lost, &rows[n].rtt_min_us, &rows[n].rtt_p50_us,
                         &rows[n].rtt_max_us, &rows[n].jitter_us };
        rows[n].player_id = player_id;
        for (int i = 0; i < 7; i++)
            *f[i] = sqlite3_column_int64(st, i);
        n++;
    }
    if (n < max && rc != SQLITE_DONE)
        n = -1;
    sqlite3_reset(st);
    return n;
}
