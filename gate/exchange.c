/* gate/exchange.c - see exchange.h. */
#include "exchange.h"

#include <stdlib.h>

#include "clock.h"

typedef enum { SLOT_FREE, SLOT_INFLIGHT, SLOT_REPLIED, SLOT_ACKED } slot_state_t;

typedef struct {
    uint64_t     seq;
    int64_t      when;    /* REPLIED: monotonic t3 (0 until written); ACKED: the result's deadline */
    slot_state_t state;
    gate_via_t   via;     /* INFLIGHT, REPLIED: how the SYNC came, and its reply goes; ACKED: how the ACK came */
} slot_t;

struct gate_exchange_t {
    slot_t slots[GATE_EXCHANGE_SLOTS];   /* an exchange sits at its seq's home slot when it can */
    int    away;                         /* exchanges in a slot not their seq's home */
    int    unstamped;                    /* REPLIED with t3 left for gate_exchange_stamp */
};

gate_exchange_t *gate_exchange_new(void)
{
    return calloc(1, sizeof(gate_exchange_t));
}

void gate_exchange_destroy(gate_exchange_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    free(*self_p);
    *self_p = NULL;
}

static slot_t *home_slot(gate_exchange_t *self, uint64_t seq)
{
    return &self->slots[seq % GATE_EXCHANGE_SLOTS];
}

static bool is_away(gate_exchange_t *self, const slot_t *s)
{
    return s != home_slot(self, s->seq);
}

static void slot_free(gate_exchange_t *self, slot_t *s)
{
    if (s->state != SLOT_FREE && is_away(self, s))
        self->away--;
    if (s->state == SLOT_REPLIED && s->when == 0)
        self->unstamped--;
    s->state = SLOT_FREE;
}

static void slot_take(gate_exchange_t *self, slot_t *s, uint64_t seq, gate_via_t via)
{
    slot_free(self, s);
    *s = (slot_t) { .seq = seq, .state = SLOT_INFLIGHT, .via = via };
    if (is_away(self, s))
        self->away++;
}

static slot_t *find_slot(gate_exchange_t *self, uint64_t seq, slot_state_t state)
{
    slot_t *h = home_slot(self, seq);
    if (h->state == state && h->seq == seq)
        return h;
    for (int i = 0; self->away > 0 && i < GATE_EXCHANGE_SLOTS; i++)
        if (self->slots[i].state == state && self->slots[i].seq == seq)
            return &self->slots[i];
    return NULL;
}

bool gate_exchange_begin(gate_exchange_t *self, uint64_t seq, gate_via_t via, int64_t now)
{
    slot_t *h = home_slot(self, seq);
    if (h->state == SLOT_FREE && self->away == 0) {   /* seq is nowhere else */
        slot_take(self, h, seq, via);
        return true;
    }
    slot_t *free_slot = NULL, *same = NULL;
    for (int i = 0; i < GATE_EXCHANGE_SLOTS; i++) {
        slot_t *s = &self->slots[i];
        switch (s->state) {
        case SLOT_FREE:
            break;
        case SLOT_INFLIGHT:
            if (s->seq == seq)
                same = s;             /* a SYNC repeated before its reply */
            continue;
        case SLOT_REPLIED:            /* a reused seq starts over; old ones are lost */
            if (s->when == 0 || (s->seq != seq && now - s->when <= GATE_EXCHANGE_US))
                continue;             /* (when 0: a corked reply, not yet written) */
            slot_free(self, s);
            break;
        case SLOT_ACKED:              /* a result deadline nobody watched */
            if (now - s->when <= GATE_EXCHANGE_US)
                continue;
            slot_free(self, s);
            break;
        }
        if (!free_slot || s == h)
            free_slot = s;            /* the home slot, when it is free, else the first */
    }
    if (same)
        free_slot = same;
    if (!free_slot) {                 /* evict the oldest replied exchange */
        for (int i = 0; i < GATE_EXCHANGE_SLOTS; i++) {
            slot_t *s = &self->slots[i];
            if (s->state == SLOT_REPLIED && s->when != 0 && (!free_slot || s->when < free_slot->when))
                free_slot = s;
        }
    }
    if (!free_slot)
        return false;
    slot_take(self, free_slot, seq, via);
    return true;
}

bool gate_exchange_inflight(const gate_exchange_t *self, uint64_t seq)
{
    return find_slot((gate_exchange_t *) self, seq, SLOT_INFLIGHT) != NULL;
}

/* Frees slot s, if there is one, telling how its exchange came. */
static bool release(gate_exchange_t *self, slot_t *s, gate_via_t *via)
{
    if (!s)
        return false;
    *via = s->via;
    slot_free(self, s);
    return true;
}

bool gate_exchange_cancel(gate_exchange_t *self, uint64_t seq, gate_via_t *via)
{
    return release(self, find_slot(self, seq, SLOT_INFLIGHT), via);
}

int gate_exchange_reply(gate_exchange_t *self, uint64_t seq, bool later)
{
    slot_t *s = find_slot(self, seq, SLOT_INFLIGHT);
    if (!s)
        return -1;
    s->state = SLOT_REPLIED;
    if (later && s->via == GATE_VIA_STREAM) {
        s->when = 0;
        self->unstamped++;
    } else {
        s->when = ts_clock_mono_us();
    }
    return (int) s->via;
}

void gate_exchange_stamp(gate_exchange_t *self, int64_t t3)
{
    for (int i = 0; self->unstamped > 0 && i < GATE_EXCHANGE_SLOTS; i++) {
        slot_t *s = &self->slots[i];
        if (s->state == SLOT_REPLIED && s->when == 0) {
            s->when = t3;
            self->unstamped--;
        }
    }
}

int64_t gate_exchange_ack(gate_exchange_t *self, uint64_t seq, int64_t t6, gate_via_t via, int64_t deadline)
{
    slot_t *s = find_slot(self, seq, SLOT_REPLIED);
    if (!s)
        return -1;
    int64_t d = t6 - s->when;   /* a reply not yet written (when 0) is matched by no ACK: freed */
    if (d < 0 || d > GATE_EXCHANGE_US) {
        slot_free(self, s);
        return -1;
    }
    s->when = deadline;
    s->state = SLOT_ACKED;
    s->via = via;
    return d;
}

bool gate_exchange_result(gate_exchange_t *self, uint64_t seq, gate_via_t *via)
{
    return release(self, find_slot(self, seq, SLOT_ACKED), via);
}

bool gate_exchange_expire(gate_exchange_t *self, uint64_t seq, int64_t deadline, gate_via_t *via)
{
    slot_t *s = find_slot(self, seq, SLOT_ACKED);
    return s && s->when == deadline && release(self, s, via);
}

/* ---- the gate-wide queue of result deadlines ------------------------------ */

typedef struct {
    uint64_t conn, seq;
    int64_t  deadline;
} await_t;

struct gate_awaits_t {
    await_t *ring;        /* FIFO, deadlines ascending */
    size_t   head, len, size;
};

gate_awaits_t *gate_awaits_new(void)
{
    return calloc(1, sizeof(gate_awaits_t));
}

void gate_awaits_destroy(gate_awaits_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    free((*self_p)->ring);
    free(*self_p);
    *self_p = NULL;
}

bool gate_awaits_push(gate_awaits_t *self, uint64_t conn, uint64_t seq, int64_t deadline)
{
    if (self->len == self->size) {
        size_t size = self->size ? self->size * 2 : 1024;
        await_t *grown = malloc(size * sizeof *grown);
        if (!grown)
            return false;
        for (size_t i = 0; i < self->len; i++)
            grown[i] = self->ring[(self->head + i) % self->size];
        free(self->ring);
        self->ring = grown;
        self->head = 0;
        self->size = size;
    }
    self->ring[(self->head + self->len++) % self->size] = (await_t) { conn, seq, deadline };
    return true;
}

bool gate_awaits_pop_due(gate_awaits_t *self, int64_t now, uint64_t *conn, uint64_t *seq, int64_t *deadline)
{
    if (self->len == 0 || self->ring[self->head].deadline > now)
        return false;
    const await_t *a = &self->ring[self->head];
    *conn = a->conn;
    *seq = a->seq;
    *deadline = a->deadline;
    self->head = (self->head + 1) % self->size;
    self->len--;
    return true;
}

size_t gate_awaits_len(const gate_awaits_t *self)
{
    return self->len;
}
