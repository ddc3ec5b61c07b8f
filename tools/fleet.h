/* tools/fleet.h - ticksync-admin fleet: the whole fleet's latency over
 * days, from the history ticksync-export ships to ClickHouse (DESIGN
 * "Fleet history"): per shard and hour the players, exchanges, losses and
 * the delay's p50/p90/p99, then the players whose delay was worst over the
 * span. Each answer reads the table with FINAL, so a row sent twice counts
 * once. */
#ifndef TOOLS_FLEET_H
#define TOOLS_FLEET_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "err.h"

typedef struct {
    const char *clickhouse;   /* http://HOST:PORT */
    const char *database;     /* "ticksync" */
    int64_t     since_us;     /* server time the span starts at */
    int         worst;        /* how many worst players */
    int         timeout_ms;
    bool        json;
} tools_fleet_options_t;

/* The answer as {"since_us": N, "hours": [{shard, hour_us, players,
 * exchanges, lost, delay_us: [p50, p90, p99]}, ...], "worst": [{player_id,
 * shard, steps, exchanges, lost, delay_us}, ...]}, or NULL with the reason
 * in err (ClickHouse unreachable, no table yet, an answer that does not
 * parse). The dashboard's /api/fleet serves it as it is. */
json_t *tools_fleet_query(const tools_fleet_options_t *opt, char *err);

/* Prints the answer on stdout (a table, or with opt->json the JSON
 * object). Returns the exit status: 0, or 1 after one line on stderr. */
int tools_fleet_run(const tools_fleet_options_t *opt);

#endif
