/* scene/backup.h - a copy of a live shard's store, as of one moment, taken
 * with SQLite's online backup API while the scene keeps writing.
 *
 * The copy is made in one step (sqlite3_backup_step(-1)): one read
 * transaction on a connection of its own, so in WAL mode the writer never
 * waits for it, and the copy is the last committed flush, whole. Stepping
 * in pieces would restart the copy at every flush the scene commits in
 * between, and never finish at full rate. */
#ifndef SCENE_BACKUP_H
#define SCENE_BACKUP_H

#include <stdint.h>

#include "err.h"

/* Copies the database at db_path into an unnamed file beside it (the
 * file is unlinked once made: nothing is left behind if the caller dies).
 * Returns a descriptor open on the copy at offset 0, its size in *size;
 * or -1 with a reason in err (TS_ERR_MAX bytes). The caller closes it. */
int scene_backup_take(const char *db_path, int64_t *size, char *err);

#endif
