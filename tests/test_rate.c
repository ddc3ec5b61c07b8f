/* tests/test_rate.c - a player's clock rate from SYNC stamps: the lower
 * edge of t2 - t1, so heavy-tailed queueing does not move it; honest
 * crystals read as tens or hundreds of ppm, a 1% or 5% fast clock as a
 * speed hack; nothing before the span; a new client clock starts over. */
#include <criterion/criterion.h>
#include <math.h>

#include "prng.h"
#include "rate.h"

/* seconds of SYNCs, 20 a second, from a client whose clock runs at
 * 1 + rate; each delayed 20 ms plus Pareto(1.5) queueing of scale 5 ms */
static void play(scene_rate_t *r, double rate, double seconds, uint64_t *rng, double from)
{
    for (double t = from; t < from + seconds * 1e6; t += 50000) {
        double q = 5000 * (pow(1 - ts_prng_uniform(rng), -1 / 1.5) - 1);
        int64_t t1 = (int64_t) llround(1e12 + t * (1 + rate));
        int64_t t2 = (int64_t) llround(1.7e15 + t + 20000 + fmin(q, 400000));
        scene_rate_add(r, t1, t2);
    }
}

Test(rate, unknown_before_the_span)
{
    scene_rate_t r;
    scene_rate_init(&r, 30000000);
    uint64_t rng = 1;
    play(&r, 0, 20, &rng, 0);
    cr_assert_not(scene_rate_known(&r));
    play(&r, 0, 25, &rng, 20e6);   /* (the minima may sit up to a bucket inside the span's ends) */
    cr_assert(scene_rate_known(&r));
}

Test(rate, honest_clocks_read_small_under_heavy_tailed_queueing)
{
    const double rates[] = { 0, 200e-6, -200e-6, 50e-6 };
    for (uint64_t seed = 1; seed <= 8; seed++)
        for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++) {
            scene_rate_t r;
            scene_rate_init(&r, 30000000);
            uint64_t rng = seed;
            play(&r, rates[i], 120, &rng, 0);
            cr_assert(scene_rate_known(&r));
            cr_assert_lt(fabs(scene_rate_ppm(&r) - rates[i] * 1e6), 300, "seed %d: %.0f ppm, truth %.0f", (int) seed,
                         scene_rate_ppm(&r), rates[i] * 1e6);
        }
}

Test(rate, a_fast_clock_reads_as_what_it_is)
{
    const double rates[] = { 0.01, 0.05, -0.02 };
    for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++) {
        scene_rate_t r;
        scene_rate_init(&r, 30000000);
        uint64_t rng = 7;
        play(&r, rates[i], 60, &rng, 0);
        cr_assert_lt(fabs(scene_rate_ppm(&r) - rates[i] * 1e6), 500, "%.0f ppm, truth %.0f", scene_rate_ppm(&r),
                     rates[i] * 1e6);
    }
}

Test(rate, a_new_client_clock_starts_over)
{
    scene_rate_t r;
    scene_rate_init(&r, 10000000);
    uint64_t rng = 3;
    play(&r, 0, 30, &rng, 0);
    cr_assert(scene_rate_known(&r));
    scene_rate_add(&r, 5, (int64_t) 1.7e15 + 31000000);   /* the client restarted: its clock from 0 */
    cr_assert_not(scene_rate_known(&r));
}
