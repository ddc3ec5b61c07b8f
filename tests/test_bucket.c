/* tests/test_bucket.c - gate/bucket: bursts up to the rate, then the rate. */
#include <criterion/criterion.h>

#include "bucket.h"

Test(bucket, burst_then_refill)
{
    gate_bucket_t b;
    gate_bucket_init(&b, 20, 0);
    for (int i = 0; i < 20; i++)
        cr_assert(gate_bucket_take(&b, 0));
    cr_assert_not(gate_bucket_take(&b, 0));
    cr_assert_not(gate_bucket_take(&b, 49000));
    cr_assert(gate_bucket_take(&b, 50000), "one token per 50 ms at 20/s");
    cr_assert_not(gate_bucket_take(&b, 50000));
    int took = 0;
    for (int64_t t = 50000; t <= 10050000; t += 1000)
        took += gate_bucket_take(&b, t);
    cr_assert(took >= 199 && took <= 201, "took %d in 10 s", took);
}
