/* tests/test_frame.c - proto/frame: frames split anywhere, and the length rules. */
#include <criterion/criterion.h>
#include <string.h>

#include "frame.h"
#include "msg.h"

Test(frame, two_frames_split_at_every_byte_boundary)
{
    uint8_t stream[4 + 3 + 4 + 5] = { 0, 0, 0, 3, 'a', 'b', 'c', 0, 0, 0, 5, '1', '2', '3', '4', '5' };
    for (size_t cut = 0; cut <= sizeof stream; cut++) {
        ts_framer_t *f = ts_framer_new();
        const uint8_t *parts[2] = { stream, stream + cut };
        size_t lens[2] = { cut, sizeof stream - cut };
        char got[2][8];
        int frames = 0;
        for (int p = 0; p < 2; p++) {
            size_t off = 0;
            while (off < lens[p]) {
                size_t used;
                const uint8_t *body;
                size_t n;
                int rc = ts_framer_feed(f, parts[p] + off, lens[p] - off, &used, &body, &n);
                cr_assert_geq(rc, 0);
                off += used;
                if (rc == TS_FRAME_READY) {
                    cr_assert_lt(frames, 2);
                    memcpy(got[frames], body, n);
                    got[frames++][n] = '\0';
                }
            }
        }
        cr_assert_eq(frames, 2, "cut at %zu", cut);
        cr_assert_str_eq(got[0], "abc");
        cr_assert_str_eq(got[1], "12345");
        cr_assert_eq(ts_framer_pending(f), 0);
        ts_framer_destroy(&f);
        cr_assert_null(f);
    }
}

Test(frame, one_byte_at_a_time)
{
    uint8_t stream[] = { 0, 0, 0, 2, 'h', 'i' };
    ts_framer_t *f = ts_framer_new();
    int ready = 0;
    for (size_t i = 0; i < sizeof stream; i++) {
        size_t used;
        const uint8_t *body;
        size_t n;
        int rc = ts_framer_feed(f, stream + i, 1, &used, &body, &n);
        cr_assert_eq(used, 1);
        if (rc == TS_FRAME_READY) {
            ready++;
            cr_assert_eq(n, 2);
            cr_assert_eq(memcmp(body, "hi", 2), 0);
        }
    }
    cr_assert_eq(ready, 1);
    ts_framer_destroy(&f);
}

Test(frame, zero_length_is_bad_frame)
{
    uint8_t stream[] = { 0, 0, 0, 0 };
    ts_framer_t *f = ts_framer_new();
    size_t used;
    const uint8_t *body;
    size_t n;
    cr_assert_eq(ts_framer_feed(f, stream, 4, &used, &body, &n), -TS_BAD_FRAME);
    cr_assert_eq(ts_framer_feed(f, stream, 4, &used, &body, &n), -TS_BAD_FRAME, "stays failed");
    ts_framer_destroy(&f);
}

Test(frame, too_large_is_decided_from_the_header_alone)
{
    uint8_t header[] = { 0, 0, 0x10, 0x01 };   /* 4097, no body sent */
    ts_framer_t *f = ts_framer_new();
    size_t used;
    const uint8_t *body;
    size_t n;
    cr_assert_eq(ts_framer_feed(f, header, 2, &used, &body, &n), TS_FRAME_NEED_MORE);
    cr_assert_eq(ts_framer_feed(f, header + 2, 2, &used, &body, &n), -TS_TOO_LARGE);
    ts_framer_destroy(&f);
}

Test(frame, largest_frame_is_accepted)
{
    static uint8_t stream[4 + TS_FRAME_MAX];
    ts_frame_put_header(stream, TS_FRAME_MAX);
    ts_framer_t *f = ts_framer_new();
    size_t used;
    const uint8_t *body;
    size_t n;
    cr_assert_eq(ts_framer_feed(f, stream, 100, &used, &body, &n), TS_FRAME_NEED_MORE);
    cr_assert_eq(ts_framer_feed(f, stream + 100, sizeof stream - 100, &used, &body, &n), TS_FRAME_READY);
    cr_assert_eq(n, TS_FRAME_MAX);
    ts_framer_destroy(&f);
}
