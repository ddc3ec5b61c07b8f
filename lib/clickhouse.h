/* lib/clickhouse.h - ClickHouse over its HTTP interface, with libcurl: one
 * statement a call, its answer read into memory. Used by ticksync-export
 * (INSERTs of a shard's history) and ticksync-admin fleet (SELECTs).
 *
 * Only what Debian's server (18.16) and current releases both accept: the
 * statement in the URL's query= (or as the body), the rows of an INSERT as
 * the body, settings as URL parameters, a failure as a non-200 status whose
 * body is the server's exception text. */
#ifndef TS_LIB_CLICKHOUSE_H
#define TS_LIB_CLICKHOUSE_H

#include <stddef.h>

#include "err.h"

typedef struct ts_clickhouse_t ts_clickhouse_t;

/* url: "http://HOST:PORT" (a trailing path or slash is kept as the base).
 * timeout_ms bounds each statement, connect included. Returns NULL with a
 * reason in err (not an http:// URL, out of memory). */
ts_clickhouse_t *ts_clickhouse_new(const char *url, int timeout_ms, char *err);
void ts_clickhouse_destroy(ts_clickhouse_t **self_p);

/* Runs sql. With rows (len bytes, may be binary), sql is sent in the URL
 * and rows as the body (an INSERT ... FORMAT X); without, sql is the body.
 * 64-bit integers come back unquoted in JSON formats. Returns 0 with the
 * answer in *answer (NUL-terminated, malloc'd, caller frees; answer may be
 * NULL to drop it), or -1 with a reason in err: curl's (cannot connect,
 * timed out) or the server's status and the start of its exception text. */
int ts_clickhouse_run(ts_clickhouse_t *self, const char *sql, const void *rows, size_t len,
                      char **answer, char *err);

#endif
