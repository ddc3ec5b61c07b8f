/* tests/test_e2e_store.c - the scene's store under faults, with the real
 * processes: SIGTERM loses nothing, even with a flush a minute away;
 * SIGKILL loses nothing older than the flush interval (and the
 * gate stays up, answers UNAVAILABLE within a second, and a restarted
 * scene carries on); a full disk is logged, service goes on from memory,
 * and everything is written once the disk has room again; the same when
 * the database's files turn read-only under the scene; players idle
 * past --idle-s leave memory and come back with their history. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "e2e.h"

static e2e_stack_t stack;

static const char *fast_syncs[] = { "--sync-rate", "100000", NULL };

static void start(void) { e2e_start(&stack, true, fast_syncs); }
static void stop(void) { e2e_stop(&stack); }

#define PLAYERS 10
#define MAX_EX  4000

Test(e2e_store, sigkill_loses_nothing_older_than_the_flush_interval, .init = start, .fini = stop, .timeout = 120)
{
    int fds[PLAYERS];
    uint64_t seq[PLAYERS] = { 0 };
    static int64_t done_at[PLAYERS][MAX_EX];   /* when each exchange's SYNC_RESULT came */
    for (int p = 0; p < PLAYERS; p++)
        fds[p] = e2e_login(stack.port[0], (uint64_t) (p + 1));
    int64_t end = e2e_mono_us() + 1500000;
    while (e2e_mono_us() < end)
        for (int p = 0; p < PLAYERS && seq[p] < MAX_EX; p++) {
            e2e_exchange(fds[p], seq[p] + 1, 200, 200, 0);
            done_at[p][seq[p]++] = e2e_mono_us();
        }
    int64_t killed = e2e_mono_us();
    kill(stack.scene[0], SIGKILL);
    waitpid(stack.scene[0], NULL, 0);
    stack.scene[0] = 0;

    /* 100 ms flush interval, plus the worker's hand-over and the flush itself */
    int64_t horizon = killed - 100000 - 50000;
    for (int p = 0; p < PLAYERS; p++) {
        int64_t older = 0;
        while (older < (int64_t) seq[p] && done_at[p][older] < horizon)
            older++;
        int64_t stored = e2e_db_value(stack.db[0], (uint64_t) (p + 1), "samples");
        cr_assert_geq(stored, older, "player %d: %lld stored, %lld finished before the last flush interval (of %llu)",
                      p + 1, (long long) stored, (long long) older, (unsigned long long) seq[p]);
        cr_assert_leq(stored, (int64_t) seq[p]);
    }

    /* the gate stays up: a SYNC is answered, its ACK UNAVAILABLE within a second */
    cr_assert(e2e_can_connect(stack.port[0]));
    int64_t t0 = e2e_mono_us();
    e2e_sync_unmeasured(fds[0], seq[0] + 1);
    cr_assert_lt(e2e_mono_us() - t0, 1100000);

    /* a restarted scene carries on from what it stored */
    int64_t stored = e2e_db_value(stack.db[0], 1, "samples");
    e2e_start_scene(&stack, 0);
    e2e_sleep_us(1200000);   /* the gate's PINGs find the shard again */
    e2e_exchange(fds[0], seq[0] + 2, 200, 200, 0);
    e2e_sleep_us(400000);
    cr_assert_eq(e2e_db_value(stack.db[0], 1, "samples"), stored + 1);
    for (int p = 0; p < PLAYERS; p++)
        close(fds[p]);
}

/* ---- SIGTERM: whatever the flush interval, everything is written -------- */

static const char *flush_rarely[] = { "--flush-ms", "60000", NULL };

static void start_flushing_rarely(void) { e2e_start_cluster(&stack, 1, 1, true, fast_syncs, flush_rarely); }

Test(e2e_store, sigterm_loses_nothing_even_between_flushes, .init = start_flushing_rarely, .fini = stop, .timeout = 60)
{
    int fds[PLAYERS];
    for (int p = 0; p < PLAYERS; p++) {
        fds[p] = e2e_login(stack.port[0], (uint64_t) (500 + p));
        for (uint64_t seq = 1; seq <= 5; seq++)
            e2e_exchange(fds[p], seq, 500, 500, 0);
    }
    cr_assert_eq(e2e_db_value(stack.db[0], 500, "samples"), INT64_MIN, "nothing flushed yet, a minute to go");
    cr_assert_eq(e2e_term(stack.scene[0]), 0, "the scene exits 0 on SIGTERM");
    stack.scene[0] = 0;
    for (int p = 0; p < PLAYERS; p++) {
        cr_assert_eq(e2e_db_value(stack.db[0], (uint64_t) (500 + p), "samples"), 5, "player %d", 500 + p);
        close(fds[p]);
    }
}

/* ---- a full disk: the stack's folder is a small tmpfs ------------------------ */

static bool mounted;

static void start_on_tmpfs(void)
{
    char dir[64];
    snprintf(dir, sizeof dir, "/tmp/ts-e2e-%d", (int) getpid());
    mkdir(dir, 0755);
    mounted = mount("tmpfs", dir, "tmpfs", 0, "size=4m") == 0;
    if (mounted)
        e2e_start(&stack, true, NULL);
}

static void stop_on_tmpfs(void)
{
    if (!mounted)
        return;
    e2e_stop(&stack);
    umount(stack.dir);
    rmdir(stack.dir);
}

/* The stack's store breaks while it serves: a clear log line naming the
 * cause, service goes on from memory, and once the fault is mended every
 * flush that failed is written and nothing is lost. */
typedef struct {
    void      (*inflict)(void), (*mend)(void);
    const char *cause;   /* in the log line */
} fault_t;

static void served_through(const fault_t *fault)
{
    int fd = e2e_login(stack.port[0], 1);
    uint64_t seq = 0;
    for (int i = 0; i < 3; i++)
        e2e_exchange(fd, ++seq, 500, 500, 0);
    e2e_sleep_us(300000);
    cr_assert_eq(e2e_db_value(stack.db[0], 1, "samples"), 3);

    fault->inflict();
    /* service goes on from memory while every flush fails */
    int others[40];
    for (int p = 0; p < 40; p++) {
        others[p] = e2e_login(stack.port[0], (uint64_t) (100 + p));
        for (int i = 1; i <= 3; i++)
            cr_assert_gt(e2e_exchange(others[p], (uint64_t) i, 500, 500, 0), 0);
    }
    for (int i = 0; i < 5; i++)
        e2e_exchange(fd, ++seq, 500, 500, 0);
    e2e_sleep_us(500000);
    cr_assert(e2e_file_contains(stack.scene_log[0], "event=store_write_failed"), "a clear log line");
    cr_assert(e2e_file_contains(stack.scene_log[0], fault->cause), "naming the cause: %s", fault->cause);
    cr_assert_eq(e2e_db_value(stack.db[0], 1, "samples"), 3, "nothing new could be written");

    /* mended: the retries succeed and nothing was lost */
    long long errors = e2e_metric(stack.admin_port[0], "ticksync_scene_store_errors_total");
    cr_assert_gt(errors, 0);
    fault->mend();
    bool recovered = false;
    for (int i = 0; i < 50 && !recovered; i++) {
        e2e_sleep_us(100000);
        recovered = e2e_file_contains(stack.scene_log[0], "event=store_recovered");
    }
    cr_assert(recovered, "recovered once mended (store errors %lld, then %lld)", errors,
              e2e_metric(stack.admin_port[0], "ticksync_scene_store_errors_total"));
    cr_assert_eq(e2e_db_value(stack.db[0], 1, "samples"), 8);
    for (int p = 0; p < 40; p++) {
        cr_assert_eq(e2e_db_value(stack.db[0], (uint64_t) (100 + p), "samples"), 3);
        close(others[p]);
    }
    close(fd);
}

static char filler[128];

static void fill(void)
{
    char cmd[256];
    snprintf(filler, sizeof filler, "%s/filler", stack.dir);
    snprintf(cmd, sizeof cmd, "dd if=/dev/zero of=%s bs=64k 2>/dev/null; true", filler);
    cr_assert_eq(e2e_run(cmd, NULL), 0);
}

static void unfill(void) { cr_assert_eq(unlink(filler), 0); }

Test(e2e_store, a_full_disk_is_logged_served_through_and_recovered, .init = start_on_tmpfs, .fini = stop_on_tmpfs,
     .timeout = 120)
{
    if (!mounted)
        cr_skip_test("cannot mount a tmpfs here (needs root); the full-disk path is untested on this machine");
    served_through(&(fault_t) { fill, unfill, "full" });
}

/* ---- a read-only database: its files turn immutable under the running scene -- */

/* chattr +i makes even root's writes to already-open files fail (EPERM), as
 * a filesystem gone read-only does; -i mends it. False where the filesystem
 * has no such flag (tmpfs, overlayfs). */
static bool immutable(bool on)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "chattr %ci %s %s-wal 2>/dev/null", on ? '+' : '-', stack.db[0], stack.db[0]);
    return e2e_run(cmd, NULL) == 0;
}

static bool can_be_immutable;

static void start_checking_chattr(void)
{
    start();
    can_be_immutable = immutable(true) && immutable(false);
}

static void stop_mutable(void)
{
    immutable(false);   /* whatever happened, the folder must be removable */
    stop();
}

static void make_read_only(void) { cr_assert(immutable(true)); }
static void make_writable(void) { cr_assert(immutable(false)); }

Test(e2e_store, a_read_only_database_is_logged_served_through_and_recovered, .init = start_checking_chattr,
     .fini = stop_mutable, .timeout = 120)
{
    if (!can_be_immutable)
        cr_skip_test("chattr +i does not work on this filesystem; the read-only path is untested on this machine");
    served_through(&(fault_t) { make_read_only, make_writable, "disk I/O error" });
}

/* ---- idle players leave memory ------------------------------------------------ */

static const char *idle_fast[] = { "--idle-s", "1", NULL };

static void start_idle(void) { e2e_start_cluster(&stack, 1, 1, true, NULL, idle_fast); }

Test(e2e_store, idle_players_leave_memory_and_come_back_with_their_history, .init = start_idle, .fini = stop,
     .timeout = 60)
{
    for (uint64_t p = 1; p <= 5; p++) {
        int fd = e2e_login(stack.port[0], p);
        e2e_exchange(fd, 1, 500, 500, 0);
        e2e_exchange(fd, 2, 500, 500, 0);
        close(fd);
    }
    e2e_sleep_us(200000);
    cr_assert_eq(e2e_metric(stack.admin_port[0], "ticksync_scene_players_in_memory"), 5);
    e2e_sleep_us(2000000);   /* past --idle-s 1 and a sweep */
    cr_assert_eq(e2e_metric(stack.admin_port[0], "ticksync_scene_players_in_memory"), 0, "memory follows online players");
    cr_assert_eq(e2e_db_value(stack.db[0], 3, "samples"), 2, "the row stays");
    int fd = e2e_login(stack.port[0], 3);
    e2e_exchange(fd, 1, 500, 500, 0);
    e2e_sleep_us(400000);
    cr_assert_eq(e2e_db_value(stack.db[0], 3, "samples"), 3, "history reloaded");
    cr_assert_eq(e2e_metric(stack.admin_port[0], "ticksync_scene_players_in_memory"), 1);
    close(fd);
}
