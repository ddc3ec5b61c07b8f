/* tests/test_log.c - log lines: key=value, one per event, with a time,
 * level, program and event, and lines below the level left out. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

/* Runs fn with stderr going to a file; returns what it wrote. */
static void capture(void (*fn)(void), char *out, size_t cap)
{
    char path[] = "/tmp/ts-log-XXXXXX";
    int fd = mkstemp(path), saved = dup(2);
    dup2(fd, 2);
    fn();
    dup2(saved, 2);
    close(saved);
    lseek(fd, 0, SEEK_SET);
    ssize_t n = read(fd, out, cap - 1);
    out[n > 0 ? n : 0] = '\0';
    close(fd);
    unlink(path);
}

static void write_some(void)
{
    ts_log_t *log = ts_log_new("gate", TS_LOG_INFO);
    ts_log(log, TS_LOG_DEBUG, "hidden", "x=%d", 1);
    ts_log(log, TS_LOG_INFO, "start", "listen=%s shards=%d", "127.0.0.1:7700", 2);
    ts_log(log, TS_LOG_ERROR, "store_write_failed", NULL);
    ts_log_destroy(&log);
}

Test(log, key_value_lines_at_or_above_the_level)
{
    char text[2048];
    capture(write_some, text, sizeof text);
    cr_assert_null(strstr(text, "hidden"));
    char *first = strtok(text, "\n"), *second = strtok(NULL, "\n");
    cr_assert_not_null(first);
    cr_assert_not_null(second);
    cr_assert_null(strtok(NULL, "\n"), "one line an event");
    cr_assert_eq(strncmp(first, "ts=", 3), 0);
    cr_assert(strstr(first, " level=info prog=gate event=start listen=127.0.0.1:7700 shards=2"), "%s", first);
    cr_assert(strstr(second, " level=error prog=gate event=store_write_failed"), "%s", second);
}

Test(log, levels_parse)
{
    cr_assert_eq(ts_log_level_parse("debug"), TS_LOG_DEBUG);
    cr_assert_eq(ts_log_level_parse("warn"), TS_LOG_WARN);
    cr_assert_eq(ts_log_level_parse("error"), TS_LOG_ERROR);
    cr_assert_eq(ts_log_level_parse("loud"), -1);
}
