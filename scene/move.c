/* scene/move.c - see move.h. */
#include "move.h"

#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "shard.h"

struct scene_move_t {
    sqlite3 *db;
};

/* The row's columns as the wire form names them, in scene_row_t's order
 * (SCENE_DB_COLUMNS); clock_rate_known rides as clock_rate_ppm null. */
#define ROW_FIELDS(X) X(rtt_us) X(srtt_us) X(rttvar_us) X(min_rtt_us) X(samples) X(invalid) X(lost) \
    X(client_rtt_us) X(client_offset_us) X(updated_at_us) X(lag_flag) X(lag_strikes) X(online) X(speed_flag)
#define HIST_FIELDS(X) X(exchanges) X(lost) X(rtt_min_us) X(rtt_p50_us) X(rtt_max_us) X(jitter_us)

scene_move_t *scene_move_new(const char *path, char *err)
{
    scene_move_t *self = calloc(1, sizeof *self);
    if (!self) {
        snprintf(err, TS_ERR_MAX, "out of memory");
        return NULL;
    }
    if (scene_db_open(&self->db, path, SQLITE_OPEN_READWRITE, NULL, NULL, NULL, NULL, 0, "open", err) < 0) {
        free(self);
        return NULL;
    }
    return self;
}

void scene_move_destroy(scene_move_t **self_p)
{
    scene_move_t *self = *self_p;
    if (!self)
        return;
    scene_db_close(&self->db, NULL, 0);
    free(self);
    *self_p = NULL;
}

static json_t *row_json(const scene_row_t *r)
{
    json_t *o = json_object();
    json_object_set_new(o, "player_id", json_integer((json_int_t) r->player_id));
#define PUT(f) json_object_set_new(o, #f, json_integer(r->f));
    ROW_FIELDS(PUT)
#undef PUT
    json_object_set_new(o, "clock_rate_ppm", r->clock_rate_known ? json_integer(r->clock_rate_ppm) : json_null());
    return o;
}

int scene_move_player_of(const json_t *player, scene_row_t *row, scene_history_row_t *hist, size_t cap,
                         size_t *nhist, char *err)
{
    const json_t *r = json_object_get(player, "row"), *h = json_object_get(player, "history");
    memset(row, 0, sizeof *row);
    const json_t *id = json_object_get(r, "player_id");
    if (!json_is_object(r) || !json_is_array(h) || !json_is_integer(id) || json_integer_value(id) <= 0) {
        snprintf(err, TS_ERR_MAX, "a player is {\"row\": {\"player_id\": N, ...}, \"history\": [...]}");
        return -1;
    }
    row->player_id = (uint64_t) json_integer_value(id);
#define GET(f)                                                                           \
    if (!json_is_integer(json_object_get(r, #f))) {                                      \
        snprintf(err, TS_ERR_MAX, "player %llu: row." #f " is not an integer",           \
                 (unsigned long long) row->player_id);                                   \
        return -1;                                                                       \
    }                                                                                    \
    row->f = json_integer_value(json_object_get(r, #f));
    ROW_FIELDS(GET)
#undef GET
    const json_t *rate = json_object_get(r, "clock_rate_ppm");
    row->clock_rate_known = json_is_integer(rate);
    row->clock_rate_ppm = row->clock_rate_known ? json_integer_value(rate) : 0;
    if (json_array_size(h) > cap) {
        snprintf(err, TS_ERR_MAX, "player %llu: %zu history rows, more than %zu", (unsigned long long) row->player_id,
                 json_array_size(h), cap);
        return -1;
    }
    *nhist = json_array_size(h);
    for (size_t i = 0; i < *nhist; i++) {
        const json_t *s = json_array_get(h, i);
        scene_history_row_t *o = &hist[i];
        memset(o, 0, sizeof *o);
        o->player_id = row->player_id;
        if (!json_is_integer(json_object_get(s, "t_us"))) {
            snprintf(err, TS_ERR_MAX, "player %llu: history[%zu].t_us is not an integer",
                     (unsigned long long) row->player_id, i);
            return -1;
        }
        o->t_us = json_integer_value(json_object_get(s, "t_us"));
#define HGET(f)                                                                          \
        if (!json_is_integer(json_object_get(s, #f))) {                                  \
            snprintf(err, TS_ERR_MAX, "player %llu: history[%zu]." #f " is not an integer", \
                     (unsigned long long) row->player_id, i);                            \
            return -1;                                                                   \
        }                                                                                \
        o->f = json_integer_value(json_object_get(s, #f));
        HIST_FIELDS(HGET)
#undef HGET
    }
    return 0;
}

void scene_move_merge(scene_row_t *cur, const scene_row_t *old)
{
    scene_row_t m = cur->samples > 0 ? *cur : *old;
    m.player_id = cur->player_id;
    m.samples = cur->samples + old->samples;
    m.invalid = cur->invalid + old->invalid;
    m.lost = cur->lost + old->lost;
    m.min_rtt_us = cur->min_rtt_us > 0 && (old->min_rtt_us <= 0 || cur->min_rtt_us < old->min_rtt_us)
                     ? cur->min_rtt_us : old->min_rtt_us;
    m.updated_at_us = cur->updated_at_us > old->updated_at_us ? cur->updated_at_us : old->updated_at_us;
    m.online = cur->online;
    m.step = cur->step;
    *cur = m;
}

/* Runs sql (no result rows); -1 with the reason in err. */
static int exec(scene_move_t *self, const char *sql, char *err)
{
    char why[TS_ERR_MAX];
    if (sqlite3_exec(self->db, sql, NULL, NULL, NULL) == SQLITE_OK)
        return 0;
    snprintf(err, TS_ERR_MAX, "%.40s: %.200s", sql, scene_db_why(self->db, why, sizeof why));
    return -1;
}

static sqlite3_stmt *prepare(scene_move_t *self, const char *sql, char *err)
{
    sqlite3_stmt *st = NULL;
    char why[TS_ERR_MAX];
    if (sqlite3_prepare_v2(self->db, sql, -1, &st, NULL) != SQLITE_OK)
        snprintf(err, TS_ERR_MAX, "%.200s", scene_db_why(self->db, why, sizeof why));
    return st;
}

/* "(1,2,3)": the batch's ids, for IN. malloc'd. */
static char *id_list(const uint64_t *ids, int n)
{
    size_t cap = (size_t) n * 21 + 3, len = 0;
    char *s = malloc(cap);
    if (!s)
        return NULL;
    s[len++] = '(';
    for (int i = 0; i < n; i++)
        len += (size_t) snprintf(s + len, cap - len, "%s%llu", i ? "," : "", (unsigned long long) ids[i]);
    snprintf(s + len, cap - len, ")");
    return s;
}

/* The players that belong elsewhere: up to limit releasable ids into ids,
 * the others counted. */
static int pick(scene_move_t *self, const scene_move_ask_t *ask, uint64_t *ids, int *n, json_int_t *held,
                json_int_t *left, char *err)
{
    sqlite3_stmt *st = prepare(self, "SELECT player_id, online, step_t_us, updated_at_us FROM player_latency", err);
    if (!st)
        return -1;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        uint64_t id = (uint64_t) sqlite3_column_int64(st, 0);
        if (ts_shard_of(id, (int) ask->shards) == (int) ask->shard)
            continue;
        bool busy = sqlite3_column_int64(st, 1) || sqlite3_column_int64(st, 2)
                 || sqlite3_column_int64(st, 3) >= ask->quiet_before_us;
        if (busy)
            (*held)++;
        else if (*n < ask->limit)
            ids[(*n)++] = id;
        else
            (*left)++;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        char why[TS_ERR_MAX];
        snprintf(err, TS_ERR_MAX, "reading player_latency: %.200s", scene_db_why(self->db, why, sizeof why));
        return -1;
    }
    return 0;
}

/* The batch's rows into players (id -> {"row", "history": []}). */
static int take_rows(scene_move_t *self, const char *in, json_t *players, char *err)
{
    char sql[256 + 64];
    char *q = malloc(strlen(in) + sizeof sql);
    if (!q) {
        snprintf(err, TS_ERR_MAX, "out of memory");
        return -1;
    }
    sprintf(q, "SELECT " SCENE_DB_COLUMNS " FROM player_latency WHERE player_id IN %s", in);
    sqlite3_stmt *st = prepare(self, q, err);
    free(q);
    if (!st)
        return -1;
    while (sqlite3_step(st) == SQLITE_ROW) {
        scene_row_t row;
        scene_db_row_of(st, &row);
        char key[24];
        snprintf(key, sizeof key, "%llu", (unsigned long long) row.player_id);
        json_object_set_new(players, key, json_pack("{s:o,s:[]}", "row", row_json(&row), "history"));
    }
    sqlite3_finalize(st);
    return 0;
}

/* The batch's history, a step at a time (two seeks a step), read and
 * deleted; each row appended to its player's "history". */
static int take_history(scene_move_t *self, const char *in, json_t *players, char *err)
{
    size_t cap = strlen(in) + 256;
    char *sel = malloc(cap), *del = malloc(cap);
    if (!sel || !del) {
        free(sel);
        free(del);
        snprintf(err, TS_ERR_MAX, "out of memory");
        return -1;
    }
    snprintf(sel, cap, "SELECT player_id, exchanges, lost, rtt_min_us, rtt_p50_us, rtt_max_us, jitter_us "
                       "FROM player_latency_history WHERE t_us = ?1 AND player_id IN %s", in);
    snprintf(del, cap, "DELETE FROM player_latency_history WHERE t_us = ?1 AND player_id IN %s", in);
    sqlite3_stmt *next = prepare(self, "SELECT min(t_us) FROM player_latency_history WHERE t_us > ?1", err);
    sqlite3_stmt *get = next ? prepare(self, sel, err) : NULL, *gone = get ? prepare(self, del, err) : NULL;
    free(sel);
    free(del);
    int rc = gone ? 0 : -1;
    int64_t t = INT64_MIN;
    while (rc == 0) {
        sqlite3_bind_int64(next, 1, t);
        if (sqlite3_step(next) != SQLITE_ROW || sqlite3_column_type(next, 0) == SQLITE_NULL) {
            sqlite3_reset(next);
            break;
        }
        t = sqlite3_column_int64(next, 0);
        sqlite3_reset(next);
        sqlite3_bind_int64(get, 1, t);
        while (sqlite3_step(get) == SQLITE_ROW) {
            char key[24];
            snprintf(key, sizeof key, "%lld", (long long) sqlite3_column_int64(get, 0));
            json_t *h = json_object_get(json_object_get(players, key), "history");
            json_array_append_new(h, json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "t_us", (json_int_t) t,
                                               "exchanges", (json_int_t) sqlite3_column_int64(get, 1),
                                               "lost", (json_int_t) sqlite3_column_int64(get, 2),
                                               "rtt_min_us", (json_int_t) sqlite3_column_int64(get, 3),
                                               "rtt_p50_us", (json_int_t) sqlite3_column_int64(get, 4),
                                               "rtt_max_us", (json_int_t) sqlite3_column_int64(get, 5),
                                               "jitter_us", (json_int_t) sqlite3_column_int64(get, 6)));
        }
        sqlite3_reset(get);
        sqlite3_bind_int64(gone, 1, t);
        if (sqlite3_step(gone) != SQLITE_DONE) {
            char why[TS_ERR_MAX];
            snprintf(err, TS_ERR_MAX, "deleting history: %.200s", scene_db_why(self->db, why, sizeof why));
            rc = -1;
        }
        sqlite3_reset(gone);
    }
    sqlite3_finalize(next);
    sqlite3_finalize(get);
    sqlite3_finalize(gone);
    return rc;
}

json_t *scene_move_release(scene_move_t *self, const scene_move_ask_t *ask, char *err)
{
    if (ask->shards < 1 || ask->shard >= ask->shards || ask->limit < 1) {
        snprintf(err, TS_ERR_MAX, "shard %u of %u, limit %d: no such batch", ask->shard, ask->shards, ask->limit);
        return NULL;
    }
    uint64_t *ids = malloc((size_t) ask->limit * sizeof *ids);
    json_t *players = json_object(), *out = NULL;
    json_int_t held = 0, left = 0;
    int n = 0;
    char *in = NULL;
    if (!ids || !players) {
        snprintf(err, TS_ERR_MAX, "out of memory");
        goto done;
    }
    /* IMMEDIATE: the scene's writer waits (its busy timeout) while a batch moves, never the other way */
    if (exec(self, "BEGIN IMMEDIATE", err) < 0)
        goto done;
    int rc = pick(self, ask, ids, &n, &held, &left, err);
    if (rc == 0 && n > 0) {
        in = id_list(ids, n);
        char *del = in ? malloc(strlen(in) + 64) : NULL;
        if (del)
            sprintf(del, "DELETE FROM player_latency WHERE player_id IN %s", in);
        rc = !del ? (snprintf(err, TS_ERR_MAX, "out of memory"), -1)
           : take_rows(self, in, players, err) < 0 || take_history(self, in, players, err) < 0 || exec(self, del, err) < 0
             ? -1 : 0;
        free(del);
    }
    if (rc < 0 || exec(self, "COMMIT", err) < 0) {
        sqlite3_exec(self->db, "ROLLBACK", NULL, NULL, NULL);
        goto done;
    }
    json_t *list = json_array();
    const char *key;
    json_t *p;
    json_object_foreach(players, key, p)
        json_array_append(list, p);
    out = json_pack("{s:o,s:I,s:I,s:I}", "players", list, "released", (json_int_t) n, "held", held, "left", left);
done:
    free(in);
    free(ids);
    json_decref(players);
    return out;
}
