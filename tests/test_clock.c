/* tests/test_clock.c - the two clocks: real time near the system's, the
 * monotonic one never going back. */
#include <criterion/criterion.h>
#include <time.h>

#include "clock.h"

Test(clock, real_is_unix_microseconds_and_mono_never_goes_back)
{
    int64_t real = ts_clock_real_us();
    cr_assert_lt(llabs(real / 1000000 - (int64_t) time(NULL)), 2);
    int64_t last = ts_clock_mono_us();
    for (int i = 0; i < 100000; i++) {
        int64_t now = ts_clock_mono_us();
        cr_assert_geq(now, last);
        last = now;
    }
}
