/* lib/log.h - key=value log lines on stderr, one event a line:
 *   ts=2026-11-21T15:19:00.123456Z level=info prog=gate event=start listen=127.0.0.1:7700
 * Safe to call from any thread: a line is written with one write(2). */
#ifndef TS_LIB_LOG_H
#define TS_LIB_LOG_H

typedef enum { TS_LOG_DEBUG, TS_LOG_INFO, TS_LOG_WARN, TS_LOG_ERROR } ts_log_level_t;

typedef struct ts_log_t ts_log_t;

/* prog names the process in every line. Returns NULL when out of memory. */
ts_log_t *ts_log_new(const char *prog, ts_log_level_t level);
void ts_log_destroy(ts_log_t **self_p);

/* Parses "debug", "info", "warn" or "error"; returns -1 for anything else. */
int ts_log_level_parse(const char *text);

/* Writes one line for event, then the caller's key=value pairs (a printf
 * format, may be NULL). Lines below the configured level are skipped. */
void ts_log(ts_log_t *self, ts_log_level_t level, const char *event, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
