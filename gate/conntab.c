/* gate/conntab.c - see conntab.h. The player index is a czmq zhashx keyed
 * by the player id itself (no key copies). */
#include "conntab.h"

#include <czmq.h>
#include <stdlib.h>

#include "idkey.h"

struct gate_conntab_t {
    gate_conn_t **conns;        /* by slot */
    uint32_t     *generation;   /* by slot */
    uint64_t     *player;       /* by slot: the player bound to it, or 0 */
    uint32_t     *free_slots;   /* stack of free slots */
    uint32_t     *retired;      /* slots of connections retired this turn, to reap */
    size_t        nfree, nretired, size, count;
    zhashx_t     *players;      /* player_id -> connection id */
};

gate_conntab_t *gate_conntab_new(void)
{
    gate_conntab_t *self = calloc(1, sizeof *self);
    if (!self)
        return NULL;
    self->players = zhashx_new();
    if (!self->players) {
        free(self);
        return NULL;
    }
    zhashx_set_key_hasher(self->players, ts_idkey_hash);
    zhashx_set_key_comparator(self->players, ts_idkey_cmp);
    zhashx_set_key_duplicator(self->players, NULL);
    zhashx_set_key_destructor(self->players, NULL);
    return self;
}

void gate_conntab_destroy(gate_conntab_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    gate_conntab_t *self = *self_p;
    for (size_t i = 0; i < self->size; i++)
        gate_conn_destroy(&self->conns[i]);
    free(self->conns);
    free(self->generation);
    free(self->player);
    free(self->free_slots);
    free(self->retired);
    zhashx_destroy(&self->players);
    free(self);
    *self_p = NULL;
}

static int grow(gate_conntab_t *self)
{
    size_t size = self->size ? self->size * 2 : 1024;
    gate_conn_t **conns = realloc(self->conns, size * sizeof *conns);
    if (!conns)
        return -1;
    self->conns = conns;
    uint32_t *gen = realloc(self->generation, size * sizeof *gen);
    if (!gen)
        return -1;
    self->generation = gen;
    uint64_t *player = realloc(self->player, size * sizeof *player);
    if (!player)
        return -1;
    self->player = player;
    uint32_t *fs = realloc(self->free_slots, size * sizeof *fs);
    if (!fs)
        return -1;
    self->free_slots = fs;
    uint32_t *rs = realloc(self->retired, size * sizeof *rs);   /* room for all: retiring never allocates */
    if (!rs)
        return -1;
    self->retired = rs;
    for (size_t i = size; i-- > self->size;) {
        conns[i] = NULL;
        gen[i] = 1;
        player[i] = 0;
        fs[self->nfree++] = (uint32_t) i;
    }
    self->size = size;
    return 0;
}

gate_conn_t *gate_conntab_add(gate_conntab_t *self, int fd, gate_transport_t transport, const char *origins,
                              size_t out_cap)
{
    if (self->nfree == 0 && grow(self) < 0)
        return NULL;
    uint32_t slot = self->free_slots[self->nfree - 1];
    uint64_t id = (uint64_t) self->generation[slot] << 32 | slot;
    gate_conn_t *conn = gate_conn_new(fd, id, transport, origins, out_cap);
    if (!conn)
        return NULL;
    self->nfree--;
    self->conns[slot] = conn;
    self->count++;
    return conn;
}

gate_conn_t *gate_conntab_get(const gate_conntab_t *self, uint64_t id)
{
    uint32_t slot = (uint32_t) id, gen = (uint32_t) (id >> 32);
    if (slot >= self->size || self->generation[slot] != gen)
        return NULL;
    return self->conns[slot];
}

void gate_conntab_retire(gate_conntab_t *self, uint64_t id)
{
    gate_conn_t *conn = gate_conntab_get(self, id);
    if (!conn || gate_conn_state(conn) == GATE_CONN_GONE)
        return;
    uint64_t player = self->player[(uint32_t) id];
    if (player && gate_conntab_player_conn(self, player) == id)
        zhashx_delete(self->players, (void *) (uintptr_t) player);
    gate_conn_retire(conn);
    self->retired[self->nretired++] = (uint32_t) id;
    self->count--;
}

void gate_conntab_reap(gate_conntab_t *self)
{
    for (size_t i = 0; i < self->nretired; i++) {
        uint32_t slot = self->retired[i];
        gate_conn_destroy(&self->conns[slot]);
        self->player[slot] = 0;
        self->generation[slot] = self->generation[slot] + 1 ? self->generation[slot] + 1 : 1;
        self->free_slots[self->nfree++] = slot;
    }
    self->nretired = 0;
}

size_t gate_conntab_count(const gate_conntab_t *self) { return self->count; }

gate_conn_t *gate_conntab_next(const gate_conntab_t *self, size_t *cursor)
{
    while (*cursor < self->size) {
        gate_conn_t *c = self->conns[(*cursor)++];
        if (c && gate_conn_state(c) != GATE_CONN_GONE)
            return c;
    }
    return NULL;
}

uint64_t gate_conntab_bind(gate_conntab_t *self, uint64_t player_id, uint64_t id)
{
    uint64_t old = gate_conntab_player_conn(self, player_id);
    self->player[(uint32_t) id] = player_id;
    zhashx_update(self->players, (void *) (uintptr_t) player_id, (void *) (uintptr_t) id);
    return old;
}

uint64_t gate_conntab_player_conn(const gate_conntab_t *self, uint64_t player_id)
{
    return (uint64_t) (uintptr_t) zhashx_lookup(self->players, (void *) (uintptr_t) player_id);
}

size_t gate_conntab_players(const gate_conntab_t *self) { return zhashx_size(self->players); }
