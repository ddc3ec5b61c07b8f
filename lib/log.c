/* lib/log.c - see log.h. */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct ts_log_t {
    char           prog[32];
    ts_log_level_t level;
};

static const char *level_names[] = { "debug", "info", "warn", "error" };

ts_log_t *ts_log_new(const char *prog, ts_log_level_t level)
{
    ts_log_t *self = calloc(1, sizeof *self);
    if (!self)
        return NULL;
    snprintf(self->prog, sizeof self->prog, "%s", prog);
    self->level = level;
    return self;
}

void ts_log_destroy(ts_log_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    free(*self_p);
    *self_p = NULL;
}

int ts_log_level_parse(const char *text)
{
    for (int i = 0; i < 4; i++)
        if (strcmp(text, level_names[i]) == 0)
            return i;
    return -1;
}

void ts_log(ts_log_t *self, ts_log_level_t level, const char *event, const char *fmt, ...)
{
    if (!self || level < self->level)
        return;
    char line[1024];
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    struct tm tm;
    gmtime_r(&now.tv_sec, &tm);
    int n = snprintf(line, sizeof line, "ts=%04d-%02d-%02dT%02d:%02d:%02d.%06ldZ level=%s prog=%s event=%s",
                     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                     now.tv_nsec / 1000, level_names[level], self->prog, event);
    if (fmt && n > 0 && (size_t) n < sizeof line - 2) {
        line[n++] = ' ';
        va_list ap;
        va_start(ap, fmt);
        int m = vsnprintf(line + n, sizeof line - (size_t) n, fmt, ap);
        va_end(ap);
        n = m < 0 ? n - 1 : n + m;
    }
    if (n < 0)
        return;
    if ((size_t) n > sizeof line - 2)
        n = (int) sizeof line - 2;
    line[n++] = '\n';
    ssize_t w = write(STDERR_FILENO, line, (size_t) n);
    (void) w;
}
