/* tests/test_exchange.c - the exchanges a connection has in flight
 * (INFLIGHT, REPLIED, ACKED) in direct-mapped slots, and the gate-wide
 * queue of SYNC_RESULT deadlines. */
#include <criterion/criterion.h>
#include <unistd.h>

#include "clock.h"
#include "exchange.h"

static gate_exchange_t *x;

static void setup(void)
{
    x = gate_exchange_new();
    cr_assert_not_null(x);
}

static void teardown(void)
{
    gate_exchange_destroy(&x);
    gate_exchange_destroy(&x);   /* idempotent */
    cr_assert_null(x);
}

Test(exchange, a_reply_is_stamped_now_or_by_the_write_that_carries_it, .init = setup, .fini = teardown)
{
    cr_assert(gate_exchange_begin(x, 1, GATE_VIA_STREAM, ts_clock_mono_us()));
    cr_assert(gate_exchange_begin(x, 2, GATE_VIA_UDP, ts_clock_mono_us()));
    cr_assert(gate_exchange_begin(x, 3, GATE_VIA_STREAM, ts_clock_mono_us()));
    cr_assert_eq(gate_exchange_reply(x, 1, true), GATE_VIA_STREAM, "the stream, stamped later");
    cr_assert_eq(gate_exchange_reply(x, 2, true), GATE_VIA_UDP, "UDP: its reply goes back that way, stamped now");
    cr_assert_eq(gate_exchange_reply(x, 3, false), 0);
    cr_assert_eq(gate_exchange_reply(x, 9, false), -1, "not in flight");
    cr_assert_eq(gate_exchange_ack(x, 1, ts_clock_mono_us(), GATE_VIA_STREAM, 1), -1, "not written yet: no ACK matches");
    cr_assert(gate_exchange_begin(x, 1, GATE_VIA_STREAM, ts_clock_mono_us()));
    cr_assert_eq(gate_exchange_reply(x, 1, true), 0);
    usleep(20000);
    int64_t written = ts_clock_mono_us();
    gate_exchange_stamp(x, written);
    cr_assert_eq(gate_exchange_ack(x, 1, written + 5000, GATE_VIA_STREAM, 1), 5000, "t3 is the stamp's");
    int64_t d = gate_exchange_ack(x, 3, written, GATE_VIA_STREAM, 1);
    cr_assert(d >= 20000 && d < 200000, "t3 read at the reply: %lld", (long long) d);
    cr_assert_geq(gate_exchange_ack(x, 2, written, GATE_VIA_UDP, 1), 20000);
}

Test(exchange, an_acked_exchange_awaits_one_result_until_its_deadline, .init = setup, .fini = teardown)
{
    gate_via_t via = GATE_VIA_STREAM;
    int64_t base = ts_clock_mono_us() + 1000000;
    for (uint64_t seq = 1; seq <= 3; seq++) {
        cr_assert(gate_exchange_begin(x, seq, GATE_VIA_STREAM, ts_clock_mono_us()));
        cr_assert_eq(gate_exchange_reply(x, seq, false), 0);
        cr_assert_geq(gate_exchange_ack(x, seq, ts_clock_mono_us(), seq == 2, base + (int64_t) seq), 0);
    }
    cr_assert(gate_exchange_result(x, 2, &via));
    cr_assert_eq(via, GATE_VIA_UDP, "the ACK came over UDP, so does its result");
    cr_assert_not(gate_exchange_result(x, 2, &via), "one result per ACK");
    cr_assert_not(gate_exchange_expire(x, 1, base + 2, &via), "only the deadline it was given");
    cr_assert(gate_exchange_expire(x, 1, base + 1, &via));
    cr_assert_eq(via, GATE_VIA_STREAM);
    cr_assert_not(gate_exchange_result(x, 1, &via), "expired: a late result is not sent");
    cr_assert(gate_exchange_result(x, 3, &via));
    cr_assert_not(gate_exchange_result(x, 9, &via), "never ACKed");
}

Test(exchange, a_cancelled_sync_frees_its_slot, .init = setup, .fini = teardown)
{
    for (uint64_t seq = 1; seq <= GATE_EXCHANGE_SLOTS; seq++)
        cr_assert(gate_exchange_begin(x, seq, seq == 4, ts_clock_mono_us()));
    cr_assert_not(gate_exchange_begin(x, 100, GATE_VIA_STREAM, ts_clock_mono_us()), "every slot in flight");
    gate_via_t via = GATE_VIA_STREAM;
    cr_assert(gate_exchange_cancel(x, 4, &via));
    cr_assert_eq(via, GATE_VIA_UDP);
    cr_assert_not(gate_exchange_inflight(x, 4));
    cr_assert_not(gate_exchange_cancel(x, 4, &via), "once");
    cr_assert(gate_exchange_begin(x, 100, GATE_VIA_STREAM, ts_clock_mono_us()), "its slot is free again");
}

Test(exchange, seqs_that_share_a_home_slot_are_all_found, .init = setup, .fini = teardown)
{
    /* 5, 5 + SLOTS and 5 + 2 * SLOTS share a home slot; 6 then finds its
     * own home taken by one of them */
    const uint64_t seqs[] = { 5, 5 + GATE_EXCHANGE_SLOTS, 5 + 2 * GATE_EXCHANGE_SLOTS, 6, 1ULL << 63 };
    const size_t n = sizeof seqs / sizeof seqs[0];
    for (size_t i = 0; i < n; i++)
        cr_assert(gate_exchange_begin(x, seqs[i], GATE_VIA_STREAM, ts_clock_mono_us()));
    for (size_t i = 0; i < n; i++)
        cr_assert(gate_exchange_inflight(x, seqs[i]), "seq %llu", (unsigned long long) seqs[i]);
    gate_via_t via;
    cr_assert(gate_exchange_cancel(x, 5, &via), "the one at home leaves");
    cr_assert(gate_exchange_inflight(x, 5 + GATE_EXCHANGE_SLOTS), "the ones away are still found");
    cr_assert(gate_exchange_inflight(x, 5 + 2 * GATE_EXCHANGE_SLOTS));
    cr_assert_not(gate_exchange_inflight(x, 5));
    cr_assert(gate_exchange_begin(x, 5 + GATE_EXCHANGE_SLOTS, GATE_VIA_STREAM, ts_clock_mono_us()), "a repeated SYNC");
    for (size_t i = 1; i < n; i++)
        cr_assert(gate_exchange_cancel(x, seqs[i], &via), "seq %llu", (unsigned long long) seqs[i]);
    cr_assert_not(gate_exchange_cancel(x, 5 + GATE_EXCHANGE_SLOTS, &via), "a repeated SYNC holds one slot");
    for (uint64_t seq = 1; seq <= GATE_EXCHANGE_SLOTS; seq++)
        cr_assert(gate_exchange_begin(x, seq, GATE_VIA_STREAM, ts_clock_mono_us()), "every slot is free again");
}

Test(exchange, deadlines_come_due_in_order)
{
    gate_awaits_t *q = gate_awaits_new();
    cr_assert_not_null(q);
    for (uint64_t i = 0; i < 3000; i++)   /* past the first allocation, so the ring grows while wrapped */
        cr_assert(gate_awaits_push(q, 100 + i, i, 1000 + (int64_t) i));
    uint64_t conn, seq;
    int64_t deadline;
    cr_assert_not(gate_awaits_pop_due(q, 999, &conn, &seq, &deadline), "nothing due yet");
    for (uint64_t i = 0; i < 2000; i++) {
        cr_assert(gate_awaits_pop_due(q, 2999, &conn, &seq, &deadline));
        cr_assert_eq(seq, i);
        cr_assert_eq(conn, 100 + i);
        cr_assert_eq(deadline, 1000 + (int64_t) i);
    }
    for (uint64_t i = 3000; i < 4000; i++)
        cr_assert(gate_awaits_push(q, 100 + i, i, 1000 + (int64_t) i));
    cr_assert_eq(gate_awaits_len(q), 2000);
    for (uint64_t i = 2000; i < 4000; i++) {
        cr_assert(gate_awaits_pop_due(q, INT64_MAX, &conn, &seq, &deadline));
        cr_assert_eq(seq, i);
    }
    cr_assert_not(gate_awaits_pop_due(q, INT64_MAX, &conn, &seq, &deadline), "empty");
    gate_awaits_destroy(&q);
    cr_assert_null(q);
}
