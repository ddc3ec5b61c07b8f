/* scene/gates.h - the gates a shard hears from, on its routing thread.
 *
 * A gate sends a PING to each shard every 200 ms, so a gate silent for
 * lost_after_us has gone: killed, cut off, or stalled. Its players are then
 * no longer online (DESIGN: online is true only while a gate holds the
 * session); the routing thread tells the workers. A gate keeps one ZeroMQ
 * identity for its whole run (gate/shards.c), so a reconnect is the same
 * gate and a restarted gate is a new one.
 *
 * A handful of gates per shard: a plain array, searched from the last hit.
 * Not thread-safe: the routing thread owns it. */
#ifndef SCENE_GATES_H
#define SCENE_GATES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SCENE_GATE_ID_MAX 255   /* ZeroMQ's longest routing id */

typedef struct scene_gates_t scene_gates_t;

scene_gates_t *scene_gates_new(int64_t lost_after_us);
void scene_gates_destroy(scene_gates_t **self_p);

/* A message came from gate id (len bytes) at now (monotonic µs). Returns 1
 * for a gate not known until now, 0 for a known one, -1 for an id too long
 * or out of memory (the gate is then never declared lost). */
int scene_gates_seen(scene_gates_t *self, const uint8_t *id, size_t len, int64_t now);

/* A gate silent for lost_after_us by now: its id copied to id (at least
 * SCENE_GATE_ID_MAX bytes), the gate forgotten, its length returned. 0 when
 * no gate is lost. Call until 0. */
size_t scene_gates_next_lost(scene_gates_t *self, int64_t now, uint8_t *id);

/* Gates heard from within lost_after_us. */
size_t scene_gates_count(const scene_gates_t *self);

#endif
