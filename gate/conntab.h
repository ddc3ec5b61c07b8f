/* gate/conntab.h - the gate's connections by id, and which connection each
 * welcomed player is on. A connection id is (generation << 32 | slot), so an
 * id that outlives its connection never finds a newer one in the same slot. */
#ifndef GATE_CONNTAB_H
#define GATE_CONNTAB_H

#include <stddef.h>
#include <stdint.h>

#include "conn.h"

typedef struct gate_conntab_t gate_conntab_t;

gate_conntab_t *gate_conntab_new(void);
/* Destroys every connection still in the table. */
void gate_conntab_destroy(gate_conntab_t **self_p);

/* Creates a connection for fd under a fresh id (see gate_conn_new); NULL
 * when out of memory (fd is then left open for the caller). */
gate_conn_t *gate_conntab_add(gate_conntab_t *self, int fd, gate_transport_t transport, const char *origins,
                              size_t out_cap);
/* NULL when id names no connection; a retired one is still returned, GONE,
 * until the next reap, so a caller's pointer stays valid through its turn. */
gate_conn_t *gate_conntab_get(const gate_conntab_t *self, uint64_t id);
/* Retires the connection: it goes GONE (writes nothing, reads nothing),
 * its player is unbound and it no longer counts; it is destroyed (its fd
 * closed) at the next reap. Never allocates. Retiring twice is harmless. */
void gate_conntab_retire(gate_conntab_t *self, uint64_t id);
/* Destroys the connections retired since the last reap: the gate calls it
 * at the end of each turn of its loop, a point where no caller holds one
 * (as Redis frees clients in freeClientAsync). */
void gate_conntab_reap(gate_conntab_t *self);
/* Connections not retired. */
size_t gate_conntab_count(const gate_conntab_t *self);
/* Iteration over connections not retired: start with *cursor = 0; NULL at
 * the end. Retiring the returned connection while iterating is allowed. */
gate_conn_t *gate_conntab_next(const gate_conntab_t *self, size_t *cursor);

/* Binds player_id to connection id (a bound connection unbinds its player
 * when it is retired); returns the id it was bound to before (0 if none),
 * which the caller replaces. */
uint64_t gate_conntab_bind(gate_conntab_t *self, uint64_t player_id, uint64_t id);
/* The connection id player_id is bound to, or 0. */
uint64_t gate_conntab_player_conn(const gate_conntab_t *self, uint64_t player_id);
size_t gate_conntab_players(const gate_conntab_t *self);

#endif
