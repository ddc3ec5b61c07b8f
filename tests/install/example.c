/* tests/install/example.c - a game's use of an installed libticksync: built
 * against the installed header and library only (pkg-config, or CMake's
 * find_package). It feeds the estimator two exchanges and checks the
 * server time it shows. */
#include <stdio.h>
#include <ticksync.h>

int main(void)
{
    ticksync_t *clock = ticksync_new(NULL);
    if (!clock)
        return 1;
    ticksync_sample(clock, 1000, 1000000 + 6000, 1000000 + 6000, 11000);
    ticksync_sample(clock, 100000, 1099000 + 5000, 1099000 + 5000, 110000);
    long long now = (long long) ticksync_now(clock, 200000);
    printf("server time %lld, error bound %lld us\n", now, (long long) ticksync_error_bound(clock, 200000));
    ticksync_destroy(&clock);
    return now == 1199000 ? 0 : 1;   /* the later of two equal-delay samples: offset 999000 */
}
