/* tools/fleet.c - ticksync-admin fleet (fleet.h). */
#include "fleet.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clickhouse.h"
#include "err.h"

/* delay = the step's median round trip / 2, as the admin API's delay_us */
#define DELAYS "arrayMap(x -> toInt64(x / 2), quantiles(0.5, 0.9, 0.99)(rtt_p50_us))"

/* Runs sql (FORMAT JSONEachRow) and returns its rows as a JSON array, or
 * NULL with the reason in err. */
static json_t *rows_of(ts_clickhouse_t *ch, const tools_fleet_options_t *opt, const char *sql, char *err)
{
    char why[TS_ERR_MAX], *answer = NULL;
    if (ts_clickhouse_run(ch, sql, NULL, 0, &answer, why) < 0) {
        if (strstr(why, "Code: 60,") || strstr(why, "Code: 81,"))   /* UNKNOWN_TABLE, UNKNOWN_DATABASE */
            snprintf(err, TS_ERR_MAX, "no fleet history in %.60s yet (no table %.40s.player_latency_history: "
                                      "is ticksync-export running?)", opt->clickhouse, opt->database);
        else
            snprintf(err, TS_ERR_MAX, "ClickHouse: %.240s", why);
        return NULL;
    }
    json_t *rows = json_array();
    char *save = NULL;
    for (char *line = strtok_r(answer, "\n", &save); rows && line; line = strtok_r(NULL, "\n", &save)) {
        json_error_t jerr;
        json_t *row = json_loads(line, 0, &jerr);
        if (!json_is_object(row)) {
            snprintf(err, TS_ERR_MAX, "ClickHouse answered a row that is not JSON: %s", jerr.text);
            json_decref(row);
            json_decref(rows);
            rows = NULL;
            break;
        }
        json_array_append_new(rows, row);
    }
    free(answer);
    return rows;
}

static json_int_t num(const json_t *o, const char *key)
{
    return json_integer_value(json_object_get(o, key));
}

static json_int_t delay(const json_t *o, size_t i)
{
    return json_integer_value(json_array_get(json_object_get(o, "delay_us"), i));
}

static void print_table(json_t *hours, json_t *worst)
{
    printf("%-6s %-16s %8s %10s %8s %9s %9s %9s\n", "SHARD", "HOUR (UTC)", "PLAYERS", "EXCHANGES", "LOST",
           "P50_MS", "P90_MS", "P99_MS");
    size_t i;
    json_t *h;
    json_array_foreach(hours, i, h) {
        time_t t = (time_t) (num(h, "hour_us") / 1000000);
        struct tm tm;
        char when[32];
        gmtime_r(&t, &tm);
        strftime(when, sizeof when, "%Y-%m-%d %H:00", &tm);
        printf("%-6lld %-16s %8lld %10lld %8lld %9.3f %9.3f %9.3f\n", (long long) num(h, "shard"), when,
               (long long) num(h, "players"), (long long) num(h, "exchanges"), (long long) num(h, "lost"),
               delay(h, 0) / 1e3, delay(h, 1) / 1e3, delay(h, 2) / 1e3);
    }
    printf("\nworst players over the span (by their median delay)\n");
    printf("%-20s %6s %6s %10s %8s %9s %9s\n", "PLAYER", "SHARD", "STEPS", "EXCHANGES", "LOST", "P50_MS", "P99_MS");
    json_array_foreach(worst, i, h)
        printf("%-20llu %6lld %6lld %10lld %8lld %9.3f %9.3f\n", (unsigned long long) num(h, "player_id"),
               (long long) num(h, "shard"), (long long) num(h, "steps"), (long long) num(h, "exchanges"),
               (long long) num(h, "lost"), delay(h, 0) / 1e3, delay(h, 2) / 1e3);
}

json_t *tools_fleet_query(const tools_fleet_options_t *opt, char *err)
{
    char sql[1024];
    ts_clickhouse_t *ch = ts_clickhouse_new(opt->clickhouse, opt->timeout_ms, err);
    if (!ch)
        return NULL;
    const char *d = opt->database;
    long long since = (long long) opt->since_us;
    snprintf(sql, sizeof sql,
             "SELECT shard, intDiv(t_us, 3600000000) * 3600000000 AS hour_us, uniqExact(player_id) AS players, "
             "sum(exchanges) AS exchanges, sum(lost) AS lost, " DELAYS " AS delay_us "
             "FROM %s.player_latency_history FINAL WHERE t_us >= %lld "
             "GROUP BY shard, hour_us ORDER BY shard, hour_us FORMAT JSONEachRow", d, since);
    json_t *hours = rows_of(ch, opt, sql, err);
    snprintf(sql, sizeof sql,
             "SELECT player_id, argMax(shard, t_us) AS shard, count() AS steps, sum(exchanges) AS exchanges, "
             "sum(lost) AS lost, " DELAYS " AS delay_us "
             "FROM %s.player_latency_history FINAL WHERE t_us >= %lld "
             "GROUP BY player_id ORDER BY delay_us[1] DESC, player_id LIMIT %d FORMAT JSONEachRow", d, since,
             opt->worst);
    json_t *worst = hours ? rows_of(ch, opt, sql, err) : NULL;
    ts_clickhouse_destroy(&ch);
    if (!hours || !worst) {
        json_decref(hours);
        json_decref(worst);
        return NULL;
    }
    json_t *out = json_pack("{s:I,s:o,s:o}", "since_us", (json_int_t) since, "hours", hours, "worst", worst);
    if (!out)   /* json_pack took the two either way */
        snprintf(err, TS_ERR_MAX, "out of memory");
    return out;
}

int tools_fleet_run(const tools_fleet_options_t *opt)
{
    char err[TS_ERR_MAX];
    json_t *out = tools_fleet_query(opt, err);
    if (!out) {
        fprintf(stderr, "ticksync-admin: %s\n", err);
        return 1;
    }
    int rc = 0;
    if (opt->json) {
        char *text = json_dumps(out, JSON_INDENT(2));
        rc = text ? 0 : 1;
        if (text)
            puts(text);
        free(text);
    } else {
        print_table(json_object_get(out, "hours"), json_object_get(out, "worst"));
    }
    json_decref(out);
    return rc;
}
