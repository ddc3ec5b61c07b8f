/* tests/test_span.c - tools/span: the spans operators write, and what is
 * not one. */
#include <criterion/criterion.h>

#include "span.h"

Test(span, each_unit_and_plain_seconds)
{
    cr_assert_eq(tools_span_us("90s"), 90000000);
    cr_assert_eq(tools_span_us("90"), 90000000);
    cr_assert_eq(tools_span_us("30m"), 1800000000LL);
    cr_assert_eq(tools_span_us("2h"), 7200000000LL);
    cr_assert_eq(tools_span_us("7d"), 604800000000LL);
    cr_assert_eq(tools_span_us("1.5h"), 5400000000LL);
    cr_assert_eq(tools_span_us("1000000d"), 86400000000000000LL, "the largest");
}

Test(span, what_is_not_a_span_is_zero)
{
    const char *bad[] = { NULL, "", "h", "0", "-1h", "2w", "3hours", "yesterday", "1000001s", "nan", "1e400d" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_assert_eq(tools_span_us(bad[i]), 0, "'%s'", bad[i] ? bad[i] : "(null)");
}
