/* scene/export.c - a shard's history rows into ClickHouse (export.h). */
#include "export.h"

#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clickhouse.h"
#include "db.h"

/* shard UInt16, player_id UInt64, t_us Int64, exchanges UInt32, lost UInt32,
 * rtt_min_us, rtt_p50_us, rtt_max_us, jitter_us Int64: RowBinary, little-endian. */
#define ROW_BYTES (2 + 8 + 8 + 4 + 4 + 4 * 8)
#define COLUMNS "shard, player_id, t_us, exchanges, lost, rtt_min_us, rtt_p50_us, rtt_max_us, jitter_us"

enum { ST_OPEN_STEP, ST_ROWS, ST_COUNT };
static const char *const sql[ST_COUNT] = {
    /* the oldest step a player's row still holds open */
    [ST_OPEN_STEP] = "SELECT min(step_t_us) FROM player_latency WHERE step_t_us > 0",
    /* the rows past (t_us, player_id) and before a step, in the table's own order */
    [ST_ROWS] = "SELECT player_id, t_us, exchanges, lost, rtt_min_us, rtt_p50_us, rtt_max_us, jitter_us "
                "FROM player_latency_history WHERE (t_us, player_id) > (?1, ?2) AND t_us < ?3 "
                "ORDER BY t_us, player_id LIMIT ?4",
};

struct scene_export_t {
    scene_export_options_t opt;
    ts_clickhouse_t *ch;
    sqlite3         *db;
    sqlite3_stmt    *st[ST_COUNT];
    bool             placed;          /* the table is made and the position read */
    int64_t          after_t;         /* the rows after (after_t, after_p) are still to send */
    uint64_t         after_p;
    unsigned char   *batch;           /* batch_rows * ROW_BYTES */
    char             insert[256];
};

scene_export_t *scene_export_new(const scene_export_options_t *opt, char *err)
{
    scene_export_t *self = calloc(1, sizeof *self);
    if (!self) {
        snprintf(err, TS_ERR_MAX, "out of memory");
        return NULL;
    }
    self->opt = *opt;
    self->batch = malloc((size_t) opt->batch_rows * ROW_BYTES);
    self->ch = self->batch ? ts_clickhouse_new(opt->clickhouse, opt->timeout_ms, err) : NULL;
    if (!self->batch)
        snprintf(err, TS_ERR_MAX, "out of memory");
    if (!self->ch) {
        scene_export_destroy(&self);
        return NULL;
    }
    snprintf(self->insert, sizeof self->insert, "INSERT INTO %s.%s (%s) FORMAT RowBinary", opt->database,
             SCENE_EXPORT_TABLE, COLUMNS);
    return self;
}

void scene_export_destroy(scene_export_t **self_p)
{
    scene_export_t *self = *self_p;
    if (!self)
        return;
    scene_db_close(&self->db, self->st, ST_COUNT);
    ts_clickhouse_destroy(&self->ch);
    free(self->batch);
    free(self);
    *self_p = NULL;
}

int64_t scene_export_position(const scene_export_t *self)
{
    return self->after_t;
}

/* The table, if missing, and where this shard's rows in it end. */
static int place(scene_export_t *self, char *err)
{
    char q[1024], *answer = NULL;
    const char *d = self->opt.database;
    snprintf(q, sizeof q, "CREATE DATABASE IF NOT EXISTS %s", d);
    if (ts_clickhouse_run(self->ch, q, NULL, 0, NULL, err) < 0)
        return -1;
    /* Partitions by day, so old days drop whole; the key has no shard, so a
     * player's step moved to another shard (ticksync-admin reshard) and sent
     * again by that shard replaces itself. */
    snprintf(q, sizeof q,
             "CREATE TABLE IF NOT EXISTS %s.%s (shard UInt16, player_id UInt64, t_us Int64, exchanges UInt32, "
             "lost UInt32, rtt_min_us Int64, rtt_p50_us Int64, rtt_max_us Int64, jitter_us Int64) "
             "ENGINE = ReplacingMergeTree PARTITION BY toYYYYMMDD(toDateTime(intDiv(t_us, 1000000))) "
             "ORDER BY (t_us, player_id)", d, SCENE_EXPORT_TABLE);
    if (ts_clickhouse_run(self->ch, q, NULL, 0, NULL, err) < 0)
        return -1;
    /* What ClickHouse holds of this shard is a prefix of its rows in (t_us,
     * player_id) order: batches leave in that order, one after another, and
     * each is stored whole, or (cut short) as a prefix of itself. So the
     * last row it holds is exactly where to go on. */
    snprintf(q, sizeof q, "SELECT t_us, player_id FROM %s.%s WHERE shard = %d ORDER BY t_us DESC, player_id DESC "
             "LIMIT 1 FORMAT TabSeparated", d, SCENE_EXPORT_TABLE, self->opt.shard);
    if (ts_clickhouse_run(self->ch, q, NULL, 0, &answer, err) < 0)
        return -1;
    long long t = 0;
    unsigned long long p = 0;
    char tail;
    bool ok = !answer[0] || (sscanf(answer, "%lld\t%llu%c", &t, &p, &tail) == 3 && tail == '\n' && t >= 0);
    if (!ok)
        snprintf(err, TS_ERR_MAX, "ClickHouse's last row is '%.40s', not a step and a player", answer);
    free(answer);
    if (!ok)
        return -1;
    self->after_t = t;
    self->after_p = p;
    self->placed = true;
    return 0;
}

static int open_db(scene_export_t *self, char *err)
{
    return scene_db_open(&self->db, self->opt.db, SQLITE_OPEN_READONLY, NULL, NULL, sql, self->st, ST_COUNT,
                         "read", err);
}

static int sqlite_failed(scene_export_t *self, char *err)
{
    char why[TS_ERR_MAX];
    snprintf(err, TS_ERR_MAX, "reading '%.80s': %.150s", self->opt.db, scene_db_why(self->db, why, sizeof why));
    scene_db_close(&self->db, self->st, ST_COUNT);   /* opened afresh next pass */
    return -1;
}

/* Rows of steps before this are final (see export.h). */
static int horizon(scene_export_t *self, int64_t now_us, int64_t *before, char *err)
{
    sqlite3_stmt *st = self->st[ST_OPEN_STEP];
    int rc = sqlite3_step(st);
    int64_t open = rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL ? sqlite3_column_int64(st, 0) : INT64_MAX;
    sqlite3_reset(st);
    if (rc != SQLITE_ROW)
        return sqlite_failed(self, err);
    int64_t ended = now_us - self->opt.settle_us - self->opt.step_us;
    *before = open < ended ? open : ended;
    return 0;
}

static unsigned char *put(unsigned char *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        *p++ = (unsigned char) (v >> (8 * i));
    return p;
}

/* Up to batch_rows rows past the position into the batch; returns how
 * many, or -1. The last one's key goes to *last_t, *last_p. */
static int read_batch(scene_export_t *self, int64_t before, int64_t *last_t, uint64_t *last_p, char *err)
{
    sqlite3_stmt *st = self->st[ST_ROWS];
    sqlite3_bind_int64(st, 1, self->after_t);
    sqlite3_bind_int64(st, 2, (sqlite3_int64) self->after_p);
    sqlite3_bind_int64(st, 3, before);
    sqlite3_bind_int(st, 4, self->opt.batch_rows);
    unsigned char *p = self->batch;
    int n = 0, rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        *last_p = (uint64_t) sqlite3_column_int64(st, 0);
        *last_t = sqlite3_column_int64(st, 1);
        p = put(p, (uint64_t) self->opt.shard, 2);
        p = put(p, *last_p, 8);
        p = put(p, (uint64_t) *last_t, 8);
        p = put(p, (uint64_t) sqlite3_column_int64(st, 2), 4);
        p = put(p, (uint64_t) sqlite3_column_int64(st, 3), 4);
        for (int c = 4; c < 8; c++)
            p = put(p, (uint64_t) sqlite3_column_int64(st, c), 8);
        n++;
    }
    sqlite3_reset(st);   /* ends the read transaction: the scene's checkpoints are not held */
    return rc == SQLITE_DONE ? n : sqlite_failed(self, err);
}

long scene_export_pass(scene_export_t *self, int64_t now_us, char *err)
{
    if (!self->db && open_db(self, err) < 0)
        return -1;
    if (!self->placed && place(self, err) < 0)
        return -1;
    int64_t before;
    if (horizon(self, now_us, &before, err) < 0)
        return -1;
    long sent = 0;
    for (;;) {
        int64_t last_t = 0;
        uint64_t last_p = 0;
        int n = read_batch(self, before, &last_t, &last_p, err);
        if (n < 0)
            return -1;
        if (n == 0)
            break;
        if (ts_clickhouse_run(self->ch, self->insert, self->batch, (size_t) n * ROW_BYTES, NULL, err) < 0) {
            self->placed = false;   /* read the position again: ClickHouse may have lost what it had */
            return -1;
        }
        self->after_t = last_t;
        self->after_p = last_p;
        sent += n;
        if (n < self->opt.batch_rows)
            break;
    }
    return sent;
}
