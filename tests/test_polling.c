/* tests/test_polling.c - when the clock asks next (lib/ticksync/polling): at
 * once, a burst at the burst's pace, then the interval's; the burst's pace
 * while not synced; a burst on demand; one exchange soon, for a sample that
 * waits for a second; and a resume told from a game's
 * usual gaps between asks. */
#include <criterion/criterion.h>

#include "polling.h"
#include "tuning.h"

static ts_poll_t p;

static void setup(void)
{
    ts_poll_init(&p, 3, 100000, 1000000, 1000000, 2000000);
}

Test(poll, a_burst_then_the_interval, .init = setup)
{
    cr_assert_eq(ts_poll_next(&p, false), INT64_MIN, "the first at once");
    int64_t t = 5000000;
    for (int i = 0; i < 3; i++) {
        ts_poll_sent(&p, t);
        t = ts_poll_next(&p, true);
    }
    cr_assert_eq(t, 5000000 + 2 * 100000 + 1000000, "three at the burst's pace, then the interval");
    ts_poll_sent(&p, t);
    cr_assert_eq(ts_poll_next(&p, false), t + 100000, "not synced: the burst's pace");
    cr_assert_eq(ts_poll_next(&p, true), t + 1000000);
    ts_poll_burst(&p);
    cr_assert_eq(ts_poll_next(&p, true), t + 100000, "a new path or a resync: a burst");
}

Test(poll, a_sample_that_waits_for_a_second_asks_for_it_soon, .init = setup)
{
    ts_poll_init(&p, 0, 100000, 1000000, 8000000, 2000000);
    int64_t t = 0;
    for (int i = 0; i < 3 * TS_TUNING.poll_streak; i++) {
        ts_poll_predicted(&p, true);
        ts_poll_sent(&p, t);
        t = ts_poll_next(&p, true);
    }
    cr_assert_eq(p.current_us, 8000000, "a steady clock at the longest interval");
    ts_poll_soon(&p);
    cr_assert_eq(ts_poll_next(&p, true), t - 8000000 + 100000, "the next at the burst's pace");
    ts_poll_sent(&p, t);
    cr_assert_eq(ts_poll_next(&p, true), t + 1000000, "then the floor's interval, one exchange only");
}

Test(poll, a_resume_is_a_gap_far_longer_than_usual, .init = setup)
{
    int64_t t = 1000000;
    cr_assert_not(ts_poll_asked(&p, t));
    for (int i = 0; i < 60; i++)
        cr_assert_not(ts_poll_asked(&p, t += 16667), "a frame loop");
    cr_assert_not(ts_poll_asked(&p, t += 1500000), "a hitch shorter than resume_gap");
    cr_assert_not(ts_poll_asked(&p, t += 16667));
    cr_assert(ts_poll_asked(&p, t += 3000000), "3 s away: a resume");
    cr_assert_not(ts_poll_asked(&p, t), "the same time again is no gap");
    cr_assert_not(ts_poll_asked(&p, t - 5), "nor an earlier one");
}

Test(poll, a_resume_the_game_told_is_not_counted_again, .init = setup)
{
    int64_t t = 1000000;
    for (int i = 0; i < 10; i++)
        ts_poll_asked(&p, t += 16667);
    ts_poll_resumed(&p);
    cr_assert_not(ts_poll_asked(&p, t + 10000000), "the gap after a told resume");
    cr_assert_not(ts_poll_asked(&p, t + 10016667));
}

Test(poll, a_slow_asker_is_not_resuming, .init = setup)
{
    int64_t t = 0;
    for (int i = 1; i <= 5; i++)
        cr_assert_not(ts_poll_asked(&p, t += 2500000), "asked every 2.5 s, as a server process may");
    cr_assert_not(ts_poll_asked(&p, t += 5000000), "twice its usual gap is not 8 times");
}

Test(poll, the_interval_doubles_while_predicted_and_falls_back_when_not)
{
    ts_poll_t q;
    ts_poll_init(&q, 0, 100000, 1000000, 8000000, 2000000);
    ts_poll_sent(&q, 0);
    cr_assert_eq(ts_poll_next(&q, true), 1000000, "from the floor");
    int64_t want[] = { 2000000, 4000000, 8000000, 8000000 };
    for (int step = 0; step < 4; step++) {
        for (int i = 0; i < TS_TUNING.poll_streak; i++) {
            cr_assert_eq(ts_poll_next(&q, true), step ? want[step - 1] : 1000000, "not before the streak is whole");
            ts_poll_predicted(&q, true);
        }
        cr_assert_eq(ts_poll_next(&q, true), want[step], "doubled, up to the most");
    }
    ts_poll_predicted(&q, false);
    cr_assert_eq(ts_poll_next(&q, true), 1000000, "one the model missed: back to the floor");
    for (int i = 0; i < TS_TUNING.poll_streak; i++)
        ts_poll_predicted(&q, true);
    cr_assert_eq(ts_poll_next(&q, true), 2000000);
    ts_poll_burst(&q);
    cr_assert_eq(ts_poll_next(&q, true), 1000000, "a burst starts over from the floor");
    ts_poll_set_interval(&q, 3000000);
    cr_assert_eq(ts_poll_next(&q, true), 3000000, "the server's interval is the new floor");
}

Test(poll, a_most_below_the_floor_keeps_the_floor)
{
    ts_poll_t q;
    ts_poll_init(&q, 0, 100000, 5000000, 1000000, 2000000);
    ts_poll_sent(&q, 0);
    for (int i = 0; i < 3 * TS_TUNING.poll_streak; i++)
        ts_poll_predicted(&q, true);
    cr_assert_eq(ts_poll_next(&q, true), 5000000);
}
