/* tests/test_e2e_core.c - the core path with the real binaries: client ->
 * gate -> scene -> SQLite -> reply, and PROTOCOL's answers to bad input. */
#include <criterion/criterion.h>
#include <math.h>
#include <sodium.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "e2e.h"

static e2e_stack_t stack;

static void start_open(void) { e2e_start(&stack, true, NULL); }
static void stop(void) { e2e_stop(&stack); }

Test(e2e_core, injected_delay_reaches_sqlite_and_turnaround_does_not_inflate, .init = start_open, .fini = stop, .timeout = 60)
{
    int fd = e2e_login(stack.port[0], 4242);
    const int64_t up = 10000, down = 20000, turnaround = 40000;
    double truth = 0;   /* RFC 6298's SRTT over what the server really had to measure */
    for (uint64_t seq = 1; seq <= 25; seq++) {
        int64_t rtt = e2e_exchange(fd, seq, up, down, turnaround), applied = e2e_last_applied_us();
        truth = seq == 1 ? (double) applied : truth + ((double) applied - truth) / 8;
        /* Each sample holds the injected path and none of the client's
         * turnaround: a turnaround left in would put it 40 ms over what
         * was applied. Half of that is the SYNC_ACK's way to the gate's
         * stamp, which a busy two-core machine under ASan has stretched
         * to 5.9 ms. */
        cr_assert(rtt >= up + down && rtt < applied + turnaround / 2,
                  "rtt %lld for an injected %lld (applied %lld) with a %lld turnaround", (long long) rtt,
                  (long long) (up + down), (long long) applied, (long long) turnaround);
    }
    usleep(400000);   /* more than the flush interval */
    int64_t srtt = e2e_db_value(stack.db[0], 4242, "srtt_us");
    cr_assert(llabs(srtt - llround(truth)) <= 1000, "srtt_us %lld, applied round trip smoothed %.0f (injected %lld)",
              (long long) srtt, truth, (long long) (up + down));
    cr_assert_eq(e2e_db_value(stack.db[0], 4242, "samples"), 25);
    cr_assert_eq(e2e_db_value(stack.db[0], 4242, "online"), 1);
    cr_assert_eq(e2e_db_value(stack.db[0], 4242, "client_rtt_us"), up + down);
    close(fd);
    cr_assert_eq(e2e_term(stack.gate[0]), 0, "gate exits 0 on SIGTERM");
    stack.gate[0] = 0;
    cr_assert_eq(e2e_term(stack.scene[0]), 0, "scene exits 0 on SIGTERM");
    stack.scene[0] = 0;
    cr_assert_eq(e2e_db_value(stack.db[0], 4242, "samples"), 25);
}

Test(e2e_core, history_carries_on_after_a_scene_restart, .init = start_open, .fini = stop, .timeout = 60)
{
    int fd = e2e_login(stack.port[0], 77);
    for (uint64_t seq = 1; seq <= 5; seq++)
        e2e_exchange(fd, seq, 5000, 5000, 0);
    close(fd);
    cr_assert_eq(e2e_term(stack.gate[0]), 0);
    cr_assert_eq(e2e_term(stack.scene[0]), 0);
    cr_assert_eq(e2e_db_value(stack.db[0], 77, "samples"), 5);
    e2e_start_scene(&stack, 0);      /* the same ports and database */
    e2e_start_gate(&stack, 0);
    usleep(300000);
    fd = e2e_login(stack.port[0], 77);
    e2e_exchange(fd, 6, 5000, 5000, 0);
    usleep(400000);
    cr_assert_eq(e2e_db_value(stack.db[0], 77, "samples"), 6, "counts continue from the stored row");
    close(fd);
}

Test(e2e_core, error_rows_and_close_rules, .init = start_open, .fini = stop, .timeout = 60)
{
    int good = e2e_login(stack.port[0], 1);

    int fd = e2e_connect(stack.port[0]);            /* NOT_AUTHENTICATED */
    e2e_send(fd, "uui", (uint64_t) 16, (uint64_t) 5, (int64_t) 1);
    e2e_expect_error(fd, 5, 5);
    cr_assert(e2e_closed(fd, 2000));
    close(fd);

    fd = e2e_connect(stack.port[0]);                /* BAD_FRAME: length 0 */
    e2e_send_raw(fd, "\0\0\0\0", 4);
    e2e_expect_error(fd, 0, 1);
    cr_assert(e2e_closed(fd, 2000));
    close(fd);

    fd = e2e_connect(stack.port[0]);                /* TOO_LARGE from the header alone */
    e2e_send_raw(fd, "\0\0\x10\x01", 4);
    e2e_expect_error(fd, 0, 8);
    cr_assert(e2e_closed(fd, 2000));
    close(fd);

    fd = e2e_connect(stack.port[0]);                /* UNSUPPORTED_VERSION */
    e2e_send(fd, "uuuun", (uint64_t) 1, (uint64_t) 3, (uint64_t) 2, (uint64_t) 9);
    e2e_expect_error(fd, 3, 3);
    cr_assert(e2e_closed(fd, 2000));
    close(fd);

    fd = e2e_login(stack.port[0], 2);               /* BAD_MESSAGE: kept 7 times, closed on the 8th */
    for (uint64_t i = 1; i <= 8; i++) {
        e2e_send(fd, "uu", (uint64_t) 99, i);
        e2e_expect_error(fd, (int64_t) i, 2);
    }
    cr_assert(e2e_closed(fd, 2000));
    close(fd);

    fd = e2e_login(stack.port[0], 3);               /* RATE_LIMITED keeps the connection */
    int limited = 0;
    msgpack_unpacked m;
    msgpack_unpacked_init(&m);
    for (uint64_t i = 1; i <= 40; i++)
        e2e_send(fd, "uui", (uint64_t) 16, i, (int64_t) i);
    for (int i = 0; i < 40; i++) {
        cr_assert(e2e_recv(fd, &m, 2000));
        if (e2e_int(&m, 0) == 32) {
            cr_assert_eq(e2e_int(&m, 2), 6);
            limited++;
        }
    }
    cr_assert(limited >= 19 && limited <= 21, "%d of 40 limited at 20/s", limited);
    usleep(100000);                              /* two tokens back at 20/s */
    cr_assert(e2e_exchange(fd, 1000, 0, 0, 0) >= 0, "the connection still works");

    int second = e2e_login(stack.port[0], 3);       /* replaced */
    cr_assert(e2e_recv(fd, &m, 2000));
    cr_assert_eq(e2e_int(&m, 0), 127);
    cr_assert_eq(m.data.via.array.ptr[2].via.str.size, 8);
    cr_assert_eq(memcmp(m.data.via.array.ptr[2].via.str.ptr, "replaced", 8), 0);
    cr_assert(e2e_closed(fd, 2000));
    close(fd);
    e2e_exchange(second, 1, 0, 0, 0);

    e2e_send(second, "uus", (uint64_t) 127, (uint64_t) 0, "bye");   /* BYE closes */
    cr_assert(e2e_closed(second, 2000));
    close(second);

    e2e_send(good, "uuii", (uint64_t) 18, (uint64_t) 555, (int64_t) 1, (int64_t) 2);  /* unknown seq: ignored */
    cr_assert(e2e_exchange(good, 7, 0, 0, 0) >= 0, "the well-behaved client was never affected");
    msgpack_unpacked_destroy(&m);
    close(good);
}

static void start_down(void) { e2e_start(&stack, false, NULL); }

Test(e2e_core, shard_down_syncs_the_clock_and_the_ack_is_unavailable_within_a_second, .init = start_down,
     .fini = stop, .timeout = 30)
{
    int fd = e2e_login(stack.port[0], 5);
    int64_t t0 = e2e_mono_us();
    e2e_sync_unmeasured(fd, 9);
    cr_assert_lt(e2e_mono_us() - t0, 1000000);
    close(fd);
}

static char secret_path[64];
static const char secret[] = "e2e-cluster-secret";

static void start_secret(void)
{
    snprintf(secret_path, sizeof secret_path, "/tmp/ts-secret-%d", (int) getpid());
    FILE *f = fopen(secret_path, "w");
    fprintf(f, "%s\n", secret);
    fclose(f);
    const char *extra[] = { "--secret-file", secret_path, NULL };
    e2e_start(&stack, true, extra);
}

static void stop_secret(void)
{
    e2e_stop(&stack);
    unlink(secret_path);
}

/* A token built from PROTOCOL.md with libsodium alone. */
static void make_token(uint8_t out[40], const char *key, uint64_t player, uint64_t expiry)
{
    uint8_t msg[25] = "ticksync1";
    for (int i = 0; i < 8; i++) {
        msg[9 + i] = (uint8_t) (player >> (56 - 8 * i));
        msg[17 + i] = out[i] = (uint8_t) (expiry >> (56 - 8 * i));
    }
    crypto_auth_hmacsha256_state st;
    crypto_auth_hmacsha256_init(&st, (const uint8_t *) key, strlen(key));
    crypto_auth_hmacsha256_update(&st, msg, sizeof msg);
    crypto_auth_hmacsha256_final(&st, out + 8);
}

static int64_t hello_with(int fd, uint64_t player, const uint8_t *token, size_t len)
{
    msgpack_unpacked m;
    msgpack_unpacked_init(&m);
    e2e_send(fd, "uuuub", (uint64_t) 1, (uint64_t) 4, (uint64_t) 1, player, token, len);
    cr_assert(e2e_recv(fd, &m, 2000));
    int64_t type = e2e_int(&m, 0), code = type == 32 ? e2e_int(&m, 2) : 0;
    msgpack_unpacked_destroy(&m);
    return type == 32 ? -code : type;
}

Test(e2e_core, tokens_valid_wrong_expired_and_other_player, .init = start_secret, .fini = stop_secret, .timeout = 30)
{
    uint64_t later = (uint64_t) time(NULL) + 3600;
    uint8_t t[40];
    int fd = e2e_connect(stack.port[0]);
    make_token(t, secret, 10, later);
    cr_assert_eq(hello_with(fd, 10, t, 40), 2, "valid token is welcomed");
    close(fd);

    struct { const char *key; uint64_t token_player, expiry; size_t len; } bad[] = {
        { "wrong-secret", 11, later, 40 },
        { secret, 11, (uint64_t) time(NULL) - 1, 40 },
        { secret, 12, later, 40 },   /* another player's token */
        { secret, 11, later, 39 },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        fd = e2e_connect(stack.port[0]);
        make_token(t, bad[i].key, bad[i].token_player, bad[i].expiry);
        cr_assert_eq(hello_with(fd, 11, t, bad[i].len), -4, "case %zu is UNAUTHORIZED", i);
        cr_assert(e2e_closed(fd, 2000));
        close(fd);
    }
    fd = e2e_connect(stack.port[0]);
    e2e_send(fd, "uuuun", (uint64_t) 1, (uint64_t) 4, (uint64_t) 1, (uint64_t) 11);
    e2e_expect_error(fd, 4, 4);
    close(fd);
}
