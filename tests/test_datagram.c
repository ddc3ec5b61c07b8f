/* tests/test_datagram.c - proto/datagram: the UDP header's bounds. */
#include <criterion/criterion.h>

#include "datagram.h"

Test(datagram, header_round_trips)
{
    uint8_t buf[32] = { 0 }, tag[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    ts_dgram_put_header(buf, 0x0102030405060708ULL, tag);
    buf[16] = 0x90;
    ts_dgram_t d;
    cr_assert_eq(ts_dgram_parse(buf, 17, &d), 0);
    cr_assert_eq(d.session_id, 0x0102030405060708ULL);
    cr_assert_arr_eq(d.tag, tag, 8);
    cr_assert_eq(d.msg_len, 1);
}

Test(datagram, short_and_long_datagrams_are_refused)
{
    static uint8_t buf[TS_DGRAM_MAX + 1];
    ts_dgram_t d;
    cr_assert_eq(ts_dgram_parse(buf, TS_DGRAM_HEADER, &d), -1);
    cr_assert_eq(ts_dgram_parse(buf, 3, &d), -1);
    cr_assert_eq(ts_dgram_parse(buf, TS_DGRAM_MAX + 1, &d), -1);
    cr_assert_eq(ts_dgram_parse(buf, TS_DGRAM_MAX, &d), 0);
}
