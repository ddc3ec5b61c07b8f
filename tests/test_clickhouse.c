/* tests/test_clickhouse.c - lib/clickhouse against a real clickhouse-server:
 * statements and their answers, rows sent as a body, the server's own
 * errors, and a server that is not there. */
#include <criterion/criterion.h>
#include <string.h>

#include "chserver.h"
#include "clickhouse.h"
#include "freeport.h"

static test_ch_t server;
static ts_clickhouse_t *ch;

static void setup(void)
{
    cr_assert(test_ch_start(&server), "clickhouse-server did not start (see %s/server.log)", server.dir);
    char err[TS_ERR_MAX];
    ch = ts_clickhouse_new(server.url, 5000, err);
    cr_assert_not_null(ch, "%s", err);
}

static void teardown(void)
{
    ts_clickhouse_destroy(&ch);
    test_ch_stop(&server);
}

TestSuite(clickhouse, .init = setup, .fini = teardown, .timeout = 60);

Test(clickhouse, a_statement_and_its_answer)
{
    char err[TS_ERR_MAX], *answer = NULL;
    cr_assert_eq(ts_clickhouse_run(ch, "SELECT 1 + 2 AS n, toInt64(9007199254740993) AS big FORMAT JSONEachRow",
                                   NULL, 0, &answer, err), 0, "%s", err);
    cr_assert_str_eq(answer, "{\"n\":3,\"big\":9007199254740993}\n", "64-bit integers unquoted");
    free(answer);
}

Test(clickhouse, rows_go_as_the_body_of_an_insert)
{
    char err[TS_ERR_MAX], *answer = NULL;
    cr_assert_eq(ts_clickhouse_run(ch, "CREATE TABLE t (a UInt16, b Int64) ENGINE = Memory", NULL, 0, NULL, err), 0,
                 "%s", err);
    const unsigned char rows[] = { 7, 0, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,    /* 7, -2 */
                                   1, 1, 5, 0, 0, 0, 0, 0, 0, 0 };                          /* 257, 5 */
    cr_assert_eq(ts_clickhouse_run(ch, "INSERT INTO t FORMAT RowBinary", rows, sizeof rows, NULL, err), 0, "%s", err);
    cr_assert_eq(ts_clickhouse_run(ch, "SELECT a, b FROM t ORDER BY a FORMAT TabSeparated", NULL, 0, &answer, err), 0,
                 "%s", err);
    cr_assert_str_eq(answer, "7\t-2\n257\t5\n");
    free(answer);
}

Test(clickhouse, the_servers_error_comes_back_in_one_line)
{
    char err[TS_ERR_MAX], *answer = (char *) "untouched";
    cr_assert_eq(ts_clickhouse_run(ch, "SELECT * FROM no_such_table", NULL, 0, &answer, err), -1);
    cr_assert(strstr(err, "answered 404") || strstr(err, "answered 500"), "%s", err);
    cr_assert(strstr(err, "Code: 60,"), "the exception's code: %s", err);
    cr_assert_null(strchr(err, '\n'));
    cr_assert_str_eq(answer, "untouched");
}

Test(clickhouse_down, a_server_that_is_not_there_or_not_http)
{
    char err[TS_ERR_MAX], url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d", test_free_ports(39000, 1000, 1));
    ts_clickhouse_t *c = ts_clickhouse_new(url, 1000, err);
    cr_assert_not_null(c, "%s", err);
    cr_assert_eq(ts_clickhouse_run(c, "SELECT 1", NULL, 0, NULL, err), -1);
    cr_assert(strstr(err, "connect"), "%s", err);
    ts_clickhouse_destroy(&c);
    cr_assert_null(c);
    cr_assert_null(ts_clickhouse_new("https://example", 1000, err));
    cr_assert(strstr(err, "not an http://"), "%s", err);
    cr_assert_null(ts_clickhouse_new("127.0.0.1:8123", 1000, err));
}
