/* lib/clickhouse.c - ClickHouse's HTTP interface through libcurl: one easy
 * handle a client, so its connection is kept alive between statements. */
#include "clickhouse.h"

#include <curl/curl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ts_clickhouse_t {
    CURL *curl;
    char *base;         /* url, without a trailing slash */
    int   timeout_ms;
};

typedef struct {
    char  *data;
    size_t len, cap;
    bool   failed;      /* out of memory */
} buffer_t;

static size_t collect(char *ptr, size_t size, size_t n, void *arg)
{
    buffer_t *b = arg;
    size_t more = size * n;
    if (b->len + more + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + more + 1)
            cap *= 2;
        char *data = realloc(b->data, cap);
        if (!data) {
            b->failed = true;
            return 0;
        }
        b->data = data;
        b->cap = cap;
    }
    memcpy(b->data + b->len, ptr, more);
    b->len += more;
    b->data[b->len] = '\0';
    return more;
}

ts_clickhouse_t *ts_clickhouse_new(const char *url, int timeout_ms, char *err)
{
    if (strncmp(url, "http://", 7) != 0 || !url[7]) {
        snprintf(err, TS_ERR_MAX, "'%.200s' is not an http://HOST:PORT URL", url);
        return NULL;
    }
    /* counted, and thread-safe since curl 7.84 (Debian 12 has 7.88); one
     * curl_global_cleanup a client */
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != 0) {
        snprintf(err, TS_ERR_MAX, "libcurl would not start");
        return NULL;
    }
    ts_clickhouse_t *self = calloc(1, sizeof *self);
    if (self) {
        self->curl = curl_easy_init();
        self->base = strdup(url);
        self->timeout_ms = timeout_ms;
    }
    if (!self || !self->curl || !self->base) {
        snprintf(err, TS_ERR_MAX, "out of memory");
        if (self)
            ts_clickhouse_destroy(&self);
        else
            curl_global_cleanup();
        return NULL;
    }
    size_t n = strlen(self->base);
    while (n > 7 && self->base[n - 1] == '/')
        self->base[--n] = '\0';
    return self;
}

void ts_clickhouse_destroy(ts_clickhouse_t **self_p)
{
    ts_clickhouse_t *self = *self_p;
    if (!self)
        return;
    if (self->curl)
        curl_easy_cleanup(self->curl);
    free(self->base);
    free(self);
    *self_p = NULL;
    curl_global_cleanup();
}

/* base/?output_format_json_quote_64bit_integers=0[&query=<sql escaped>] */
static char *url_of(ts_clickhouse_t *self, const char *sql_in_url)
{
    char *escaped = sql_in_url ? curl_easy_escape(self->curl, sql_in_url, 0) : NULL;
    if (sql_in_url && !escaped)
        return NULL;
    size_t n = strlen(self->base) + 64 + (escaped ? strlen(escaped) + 8 : 0);
    char *url = malloc(n);
    if (url)
        snprintf(url, n, "%s/?output_format_json_quote_64bit_integers=0%s%s", self->base,
                 escaped ? "&query=" : "", escaped ? escaped : "");
    curl_free(escaped);
    return url;
}

int ts_clickhouse_run(ts_clickhouse_t *self, const char *sql, const void *rows, size_t len,
                      char **answer, char *err)
{
    char *url = url_of(self, rows ? sql : NULL);
    buffer_t got = { 0 };
    if (!url) {
        snprintf(err, TS_ERR_MAX, "out of memory");
        return -1;
    }
    CURL *c = self->curl;
    curl_easy_reset(c);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_POST, 1L);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, rows ? rows : (const void *) sql);
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t) (rows ? len : strlen(sql)));
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long) self->timeout_ms);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &got);
    CURLcode rc = curl_easy_perform(c);
    long status = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    free(url);
    int result = -1;
    if (rc != CURLE_OK)
        snprintf(err, TS_ERR_MAX, "%.80s: %.150s", self->base, got.failed ? "out of memory" : curl_easy_strerror(rc));
    else if (status != 200)
        snprintf(err, TS_ERR_MAX, "%.60s answered %ld: %.160s", self->base, status,
                 got.data ? got.data : "(no body)");
    else
        result = 0;
    if (result == 0 && answer) {
        *answer = got.data ? got.data : strdup("");
        got.data = NULL;
        if (!*answer) {
            snprintf(err, TS_ERR_MAX, "out of memory");
            result = -1;
        }
    }
    free(got.data);
    if (result < 0 && err[0]) {   /* one line: the server's text ends with a newline */
        char *nl = strchr(err, '\n');
        if (nl)
            *nl = '\0';
    }
    return result;
}
