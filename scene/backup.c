/* scene/backup.c - see backup.h. */
#include "backup.h"

#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Copies src_path's main database into dest_path. Returns 0, or -1 with a
 * reason in err. */
static int copy(const char *src_path, const char *dest_path, char *err)
{
    sqlite3 *src = NULL, *dest = NULL;
    int rc = sqlite3_open_v2(src_path, &src, SQLITE_OPEN_READONLY, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_open_v2(dest_path, &dest, SQLITE_OPEN_READWRITE, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_busy_timeout(src, 5000);
        /* a scratch file: no journal to write beside it */
        rc = sqlite3_exec(dest, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF", NULL, NULL, NULL);
    }
    if (rc == SQLITE_OK) {
        sqlite3_backup *b = sqlite3_backup_init(dest, "main", src, "main");
        if (!b) {
            rc = sqlite3_errcode(dest);
        } else {
            rc = sqlite3_backup_step(b, -1);
            int fin = sqlite3_backup_finish(b);
            rc = rc == SQLITE_DONE ? fin : rc;
        }
    }
    if (rc != SQLITE_OK)
        snprintf(err, TS_ERR_MAX, "backup of %s: %s", src_path, sqlite3_errstr(rc));
    sqlite3_close(dest);
    sqlite3_close(src);
    return rc == SQLITE_OK ? 0 : -1;
}

int scene_backup_take(const char *db_path, int64_t *size, char *err)
{
    size_t n = strlen(db_path) + sizeof ".backup-XXXXXX";
    char *path = malloc(n);
    if (!path) {
        snprintf(err, TS_ERR_MAX, "out of memory");
        return -1;
    }
    snprintf(path, n, "%s.backup-XXXXXX", db_path);
    int fd = mkstemp(path);
    if (fd < 0) {
        snprintf(err, TS_ERR_MAX, "cannot create %s: %m", path);
        free(path);
        return -1;
    }
    struct stat st;
    bool ok = copy(db_path, path, err) == 0;
    if (ok && (fstat(fd, &st) < 0 || lseek(fd, 0, SEEK_SET) < 0)) {
        snprintf(err, TS_ERR_MAX, "cannot read back %s: %m", path);
        ok = false;
    }
    unlink(path);
    free(path);
    if (!ok) {
        close(fd);
        return -1;
    }
    *size = (int64_t) st.st_size;
    return fd;
}
