/* tests/test_backup.c - scene_backup_take on a WAL database another
 * connection keeps writing: the copy holds what was committed and not what
 * is still in a transaction, it is whole while commits land during the
 * copy, it leaves no file behind, and a source that cannot be read is an
 * error with a reason. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backup.h"

static char dir[64], path[96];

static void init(void)
{
    snprintf(dir, sizeof dir, "/tmp/ts-test-backup-%d", (int) getpid());
    mkdir(dir, 0700);
    snprintf(path, sizeof path, "%s/scene.db", dir);
}

static void fini(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}

TestSuite(backup, .init = init, .fini = fini);

static sqlite3 *open_writer(void)
{
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(db, "PRAGMA journal_mode=WAL; CREATE TABLE t (id INTEGER PRIMARY KEY, v BLOB)", NULL,
                              NULL, NULL), SQLITE_OK);
    return db;
}

static void exec(sqlite3 *db, const char *sql)
{
    cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK, "%s: %s", sql, sqlite3_errmsg(db));
}

/* The copy, read back from fd into a file of its own, and opened. */
static sqlite3 *open_copy(int fd, int64_t size)
{
    char copy[128];
    snprintf(copy, sizeof copy, "%s/copy.db", dir);
    FILE *out = fopen(copy, "w");
    char buf[65536];
    ssize_t n;
    int64_t total = 0;
    while ((n = read(fd, buf, sizeof buf)) > 0) {
        fwrite(buf, 1, (size_t) n, out);
        total += n;
    }
    fclose(out);
    close(fd);
    cr_assert_eq(total, size, "read %lld bytes of %lld", (long long) total, (long long) size);
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(copy, &db), SQLITE_OK);
    return db;
}

static int64_t one(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
    cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
    int64_t v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

static bool integrity_ok(sqlite3 *db)
{
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL), SQLITE_OK);
    bool ok = sqlite3_step(st) == SQLITE_ROW && strcmp((const char *) sqlite3_column_text(st, 0), "ok") == 0;
    sqlite3_finalize(st);
    return ok;
}

/* Files in dir other than the database and its -wal and -shm. */
static int strays(void)
{
    int n = 0;
    DIR *d = opendir(dir);
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.' && strncmp(e->d_name, "scene.db", 8) == 0 && strcmp(e->d_name, "scene.db") != 0
             && strcmp(e->d_name, "scene.db-wal") != 0 && strcmp(e->d_name, "scene.db-shm") != 0;
    closedir(d);
    return n;
}

Test(backup, copies_what_is_committed_and_not_what_is_in_a_transaction)
{
    sqlite3 *w = open_writer();
    exec(w, "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)"
            " INSERT INTO t SELECT i, randomblob(100) FROM n");
    exec(w, "BEGIN; INSERT INTO t VALUES (5000, 'uncommitted')");
    char err[TS_ERR_MAX];
    int64_t size = 0;
    int fd = scene_backup_take(path, &size, err);
    cr_assert_geq(fd, 0, "%s", err);
    cr_assert_gt(size, 100000);
    exec(w, "COMMIT");
    sqlite3 *c = open_copy(fd, size);
    cr_assert(integrity_ok(c));
    cr_assert_eq(one(c, "SELECT count(*) FROM t"), 1000);
    cr_assert_eq(one(c, "SELECT count(*) FROM t WHERE id = 5000"), 0);
    cr_assert_eq(strays(), 0, "the scratch copy is left in %s", dir);
    sqlite3_close(c);
    sqlite3_close(w);
}

static atomic_bool stop;
static atomic_int commits;

static void *write_on(void *arg)
{
    sqlite3 *w = arg;
    for (int i = 0; !atomic_load(&stop); i++) {
        char sql[128];
        snprintf(sql, sizeof sql, "INSERT OR REPLACE INTO t VALUES (%d, randomblob(2000))", i % 5000 + 1);
        if (sqlite3_exec(w, sql, NULL, NULL, NULL) == SQLITE_OK)
            atomic_fetch_add(&commits, 1);
    }
    return NULL;
}

Test(backup, is_whole_while_commits_land_during_the_copy)
{
    sqlite3 *w = open_writer();
    exec(w, "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000)"
            " INSERT INTO t SELECT i, randomblob(2000) FROM n");
    pthread_t writer;
    pthread_create(&writer, NULL, write_on, w);
    while (atomic_load(&commits) < 50)
        usleep(1000);
    int before = atomic_load(&commits);
    char err[TS_ERR_MAX];
    int64_t size = 0;
    int fd = scene_backup_take(path, &size, err);
    int after = atomic_load(&commits);
    atomic_store(&stop, true);
    pthread_join(writer, NULL);
    cr_assert_geq(fd, 0, "%s", err);
    sqlite3 *c = open_copy(fd, size);
    cr_assert(integrity_ok(c));
    cr_assert_eq(one(c, "SELECT count(*) FROM t"), 5000);
    cr_log_info("backup: %lld bytes while %d commits landed", (long long) size, after - before);
    sqlite3_close(c);
    sqlite3_close(w);
}

Test(backup, a_source_it_cannot_read_is_an_error_with_a_reason)
{
    char err[TS_ERR_MAX] = "", missing[128];
    int64_t size = 0;
    snprintf(missing, sizeof missing, "%s/none.db", dir);
    cr_assert_eq(scene_backup_take(missing, &size, err), -1);
    cr_assert(strstr(err, "none.db"), "%s", err);
    cr_assert_eq(strays(), 0);
    FILE *f = fopen(path, "w");
    fputs("this is not a database, but a file of text long enough to have a header", f);
    fclose(f);
    cr_assert_eq(scene_backup_take(path, &size, err), -1);
    cr_assert(strstr(err, "not a database"), "%s", err);
    snprintf(missing, sizeof missing, "%s/no/such/dir/scene.db", dir);
    cr_assert_eq(scene_backup_take(missing, &size, err), -1);
    cr_assert(strstr(err, "cannot create"), "%s", err);
    cr_assert_eq(strays(), 0);
}
