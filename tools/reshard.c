/* tools/reshard.c - ticksync-admin reshard (reshard.h). */
#include "reshard.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "err.h"
#include "http.h"
#include "shard.h"

#define ROWS_A_BATCH 20000   /* history rows a release aims at: its transaction stays short */
#define LIMIT_MAX    1000

typedef struct {
    const tools_reshard_options_t *opt;
    long long released[256], rows[256], held[256];
    int       seq;
} run_t;

/* POSTs body (may be NULL) to shard k's path; returns the answer's JSON
 * (200 only), or NULL after a line on stderr. */
static json_t *post(run_t *r, int k, const char *path, const char *body)
{
    ts_http_answer_t a;
    char err[TS_ERR_MAX];
    const char *url = r->opt->urls[k];
    if (ts_http_post(url, path, r->opt->token, body, body ? strlen(body) : 0, r->opt->timeout_ms, &a, err) < 0) {
        fprintf(stderr, "ticksync-admin: reshard: shard %d (%s): %s\n", k, url, err);
        return NULL;
    }
    json_t *v = a.status == 200 ? json_loadb(a.body, a.len, 0, NULL) : NULL;
    if (!v)
        fprintf(stderr, "ticksync-admin: reshard: shard %d (%s) answered %d: %.200s\n", k, url, a.status, a.body);
    ts_http_free(&a);
    return v;
}

/* Hands a released batch to the players' shards; 0 when every one took its part. */
static int hand_over(run_t *r, json_t *batch)
{
    int n = r->opt->count, rc = 0;
    json_t **parts = calloc((size_t) n, sizeof *parts);
    if (!parts)
        return -1;
    size_t i;
    json_t *p;
    json_array_foreach(json_object_get(batch, "players"), i, p) {
        int to = ts_shard_of((uint64_t) json_integer_value(json_object_get(json_object_get(p, "row"), "player_id")), n);
        if (!parts[to])
            parts[to] = json_array();
        json_array_append(parts[to], p);
    }
    for (int k = 0; k < n; k++) {
        if (!parts[k])
            continue;
        json_t *body = json_pack("{s:o}", "players", parts[k]);
        char *text = body ? json_dumps(body, JSON_COMPACT) : NULL, path[80];
        snprintf(path, sizeof path, "/v1/reshard/adopt?shards=%d&shard=%d", n, k);
        json_t *ans = text && rc == 0 ? post(r, k, path, text) : NULL;
        if (!ans)
            rc = -1;
        json_decref(ans);
        free(text);
        json_decref(body);
    }
    free(parts);
    return rc;
}

/* The batch into the journal (written whole, then renamed); its path into path. */
static int journal_write(run_t *r, int k, json_t *batch, char *path, size_t cap)
{
    char tmp[1024];
    snprintf(path, cap, "%s/shard%d-%d-%d.json", r->opt->journal, k, (int) getpid(), r->seq++);
    snprintf(tmp, sizeof tmp, "%s.partial", path);
    FILE *f = fopen(tmp, "w");
    bool ok = f && json_dumpf(batch, f, JSON_COMPACT) == 0;
    ok = f && fflush(f) == 0 && fsync(fileno(f)) == 0 && ok;
    if (f)
        fclose(f);
    if (!ok || rename(tmp, path) < 0) {
        fprintf(stderr, "ticksync-admin: reshard: cannot write the journal %s: %s\n", tmp, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

/* Batches a run before this one left in the journal, handed over first. */
static int replay(run_t *r)
{
    DIR *d = opendir(r->opt->journal);
    if (!d)
        return 0;
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n < 6 || strcmp(e->d_name + n - 5, ".json") != 0)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", r->opt->journal, e->d_name);
        json_t *batch = json_load_file(path, 0, NULL);
        if (!batch || hand_over(r, batch) < 0) {
            fprintf(stderr, "ticksync-admin: reshard: the journal's %s is still to hand over\n", path);
            rc = -1;
        } else {
            unlink(path);
            printf("handed over %zu players left in the journal by an earlier run (%s)\n",
                   json_array_size(json_object_get(batch, "players")), e->d_name);
        }
        json_decref(batch);
    }
    closedir(d);
    return rc;
}

/* Every batch shard k can release now; its counts into r. */
static int drain(run_t *r, int k, int *limit)
{
    for (;;) {
        char path[96];
        snprintf(path, sizeof path, "/v1/reshard/release?shards=%d&shard=%d&limit=%d", r->opt->count, k, *limit);
        json_t *batch = post(r, k, path, NULL);
        if (!batch)
            return -1;
        long long n = json_integer_value(json_object_get(batch, "released")), rows = 0;
        r->held[k] = json_integer_value(json_object_get(batch, "held"));
        if (n == 0) {
            json_decref(batch);
            return 0;
        }
        size_t i;
        json_t *p;
        json_array_foreach(json_object_get(batch, "players"), i, p)
            rows += (long long) json_array_size(json_object_get(p, "history"));
        char journal[1024];
        int written = journal_write(r, k, batch, journal, sizeof journal);
        bool handed = written == 0 && hand_over(r, batch) == 0;
        if (handed)
            unlink(journal);
        else if (written == 0)
            fprintf(stderr, "ticksync-admin: reshard: a batch of %lld players waits in %s: run again\n", n, journal);
        json_decref(batch);
        if (written < 0)
            return -1;
        r->released[k] += n;   /* released: counted whether handed over now or by the next run */
        r->rows[k] += rows;
        if (!handed)
            return -1;
        long long per = rows / n + 1;   /* the next batch aims at ROWS_A_BATCH history rows */
        *limit = per * LIMIT_MAX < ROWS_A_BATCH ? LIMIT_MAX : (int) (ROWS_A_BATCH / per) + 1;
    }
}

int tools_reshard_run(const tools_reshard_options_t *opt)
{
    if (opt->count < 2 || opt->count > 256) {
        fprintf(stderr, "ticksync-admin: reshard: --admin lists %d shards: give every shard's URL, the new ones "
                        "included, in the gates' --scenes order\n", opt->count);
        return 2;
    }
    if (mkdir(opt->journal, 0700) < 0 && errno != EEXIST) {
        fprintf(stderr, "ticksync-admin: reshard: cannot make the journal folder %s: %s\n", opt->journal,
                strerror(errno));
        return 1;
    }
    run_t r = { .opt = opt };
    if (replay(&r) < 0)
        return 1;
    int64_t give_up = ts_clock_mono_us() + (int64_t) opt->wait_s * 1000000;
    int limit = 100;
    long long held;
    for (;;) {
        held = 0;
        for (int k = 0; k < opt->count; k++) {
            if (drain(&r, k, &limit) < 0)
                return 1;
            held += r.held[k];
        }
        if (held == 0 || ts_clock_mono_us() >= give_up)
            break;
        sleep(1);   /* players still active on their old shard: they go quiet, or the gates are not switched yet */
    }
    long long players = 0, rows = 0;
    json_t *shards = json_array();
    for (int k = 0; k < opt->count; k++) {
        players += r.released[k];
        rows += r.rows[k];
        json_array_append_new(shards, json_pack("{s:i,s:s,s:I,s:I,s:I}", "shard", k, "url", opt->urls[k], "moved_out",
                                                (json_int_t) r.released[k], "history_rows", (json_int_t) r.rows[k],
                                                "held", (json_int_t) r.held[k]));
    }
    if (opt->json) {
        json_t *out = json_pack("{s:I,s:I,s:I,s:o}", "players", (json_int_t) players, "history_rows", (json_int_t) rows,
                                "held", (json_int_t) held, "shards", shards);
        char *text = out ? json_dumps(out, JSON_INDENT(2)) : NULL;
        if (text)
            puts(text);
        free(text);
        json_decref(out);
    } else {
        for (int k = 0; k < opt->count; k++)
            printf("shard %d (%s): %lld players moved out, %lld history rows; %lld still active there\n", k,
                   opt->urls[k], r.released[k], r.rows[k], r.held[k]);
        printf("%lld players moved to the shard their id hashes to among %d, with %lld history rows\n", players,
               opt->count, rows);
        json_decref(shards);
    }
    if (held) {
        fprintf(stderr, "ticksync-admin: reshard: %lld players still active on a shard they no longer hash to "
                        "(is every gate on the new --scenes?); run again once they have been idle --idle-s\n", held);
        return 1;
    }
    return 0;
}
