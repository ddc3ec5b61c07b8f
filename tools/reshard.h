/* tools/reshard.h - ticksync-admin reshard: after the shard set grew (the
 * gates' --scenes lists the new shards, in order), every player whose id
 * now hashes to another shard is moved there, row and history, while the
 * shards serve (scene/move.h, DESIGN "Growing the shard set").
 *
 * Each shard is asked for batches of the players it holds that belong
 * elsewhere (POST /v1/reshard/release: deleted there in the same
 * transaction), and each batch is handed to the players' new shards (POST
 * /v1/reshard/adopt), after it is written to the journal folder: a batch
 * whose adoption fails stays there, and the next run hands it over first.
 * A player still active on its old shard (a gate still routing it there,
 * or not idle for the scene's --idle-s yet) is held back and asked for
 * again until wait_s has passed. */
#ifndef TOOLS_RESHARD_H
#define TOOLS_RESHARD_H

#include <stdbool.h>

typedef struct {
    char *const *urls;       /* every shard's admin API, in the new shard order */
    int          count;
    const char  *token;
    int          timeout_ms;
    const char  *journal;    /* a folder for the batches in flight (made if missing) */
    int          wait_s;     /* how long players still active on their old shard are waited for */
    bool         json;
} tools_reshard_options_t;

/* Prints what moved (a line a shard, or JSON). Returns the exit status: 0
 * when every player is on its shard; 1 after a line on stderr (a shard
 * unreachable, a batch left in the journal, players still held). */
int tools_reshard_run(const tools_reshard_options_t *opt);

#endif
