/* tests/test_http.c - the tools' HTTP client: URL parsing, and a clear
 * error for a server that is not there. (Talking to a real server is
 * covered end to end in test_e2e_admin.) */
#include <criterion/criterion.h>
#include <string.h>

#include "http.h"

Test(http, parses_host_port_and_prefix)
{
    char host[256], port[8], prefix[256], err[TS_ERR_MAX];
    cr_assert_eq(ts_http_parse_url("http://127.0.0.1:9171", host, port, prefix, err), 0);
    cr_assert_str_eq(host, "127.0.0.1");
    cr_assert_str_eq(port, "9171");
    cr_assert_str_eq(prefix, "");
    cr_assert_eq(ts_http_parse_url("http://scene1:9171/admin/", host, port, prefix, err), 0);
    cr_assert_str_eq(host, "scene1");
    cr_assert_str_eq(prefix, "/admin");
    cr_assert_eq(ts_http_parse_url("http://[::1]:80", host, port, prefix, err), 0);
    cr_assert_str_eq(host, "::1");
    cr_assert_eq(ts_http_parse_url("http://example", host, port, prefix, err), 0);
    cr_assert_str_eq(port, "80");
    cr_assert_eq(ts_http_parse_url("https://x:1", host, port, prefix, err), -1);
    cr_assert(strstr(err, "not an http:// URL"));
    cr_assert_eq(ts_http_parse_url("http://:80", host, port, prefix, err), -1);
    cr_assert_eq(ts_http_parse_url("http://h:123456", host, port, prefix, err), -1);
}

Test(http, an_unreachable_server_is_an_error_not_an_answer)
{
    ts_http_answer_t a;
    char err[TS_ERR_MAX];
    cr_assert_eq(ts_http_get("http://127.0.0.1:1", "/healthz", NULL, 500, &a, err), -1);
    cr_assert(strstr(err, "cannot connect"), "%s", err);
    cr_assert_null(a.body);
}
