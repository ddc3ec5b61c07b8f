/* tools/dashboard.h - `ticksync-admin dashboard`: one page for the whole
 * cluster, served on one origin, fanning out to the shards' admin APIs as
 * the CLI does. The page (HTML, CSS and script, no CDN) ships in the
 * binary; it asks this server's /api/cluster every 2 s and, for a player id
 * entered, /api/history.
 *
 *   /               the page
 *   /api/cluster    {"shards": [{shard, url, up, stats}], "players": [the worst rows of every shard, merged],
 *                    "flagged": {"lag": [rows], "speed": [rows]}}
 *   /api/history?player=ID   the player's shard's /v1/players/ID/history (the last hour)
 *   /api/fleet?since=24h     with a ClickHouse: ticksync-admin fleet's answer (fleet.h); 404 without
 *   /metrics, /healthz       as every ticksync process */
#ifndef TOOLS_DASHBOARD_H
#define TOOLS_DASHBOARD_H

#include "err.h"

typedef struct {
    const char *listen;          /* HOST:PORT */
    char *const *urls;           /* the shards' admin APIs, in shard order */
    int         count;
    const char *token;           /* the admin API's bearer token, or NULL */
    int         timeout_ms;
    const char *clickhouse;      /* where ticksync-export ships the history, or NULL: no fleet view */
    const char *clickhouse_db;
} tools_dashboard_options_t;

typedef struct tools_dashboard_t tools_dashboard_t;

/* Starts serving (a thread of its own). NULL with a reason in err. */
tools_dashboard_t *tools_dashboard_new(const tools_dashboard_options_t *options, char *err);
void tools_dashboard_destroy(tools_dashboard_t **self_p);

#endif
