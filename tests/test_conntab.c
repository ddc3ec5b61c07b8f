/* tests/test_conntab.c - connections by id, generations, and which
 * connection each player is on. */
#include <criterion/criterion.h>
#include <sys/socket.h>
#include <unistd.h>

#include "conntab.h"

static int new_fd(void)
{
    int sv[2];
    cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    close(sv[1]);
    return sv[0];
}

Test(conntab, ids_outlive_their_connections_without_finding_newer_ones)
{
    gate_conntab_t *t = gate_conntab_new();
    gate_conn_t *a = gate_conntab_add(t, new_fd(), GATE_TRANSPORT_TCP, NULL, 1024);
    uint64_t id = gate_conn_id(a);
    cr_assert_eq(gate_conntab_get(t, id), a);
    cr_assert_eq(gate_conntab_count(t), 1);
    gate_conntab_retire(t, id);
    cr_assert_eq(gate_conntab_get(t, id), a, "retired: still there, GONE, until the turn ends");
    cr_assert_eq(gate_conn_state(a), GATE_CONN_GONE);
    cr_assert_eq(gate_conntab_count(t), 0);
    gate_conntab_retire(t, id);   /* twice is harmless */
    gate_conntab_reap(t);
    cr_assert_null(gate_conntab_get(t, id));
    gate_conn_t *b = gate_conntab_add(t, new_fd(), GATE_TRANSPORT_TCP, NULL, 1024);
    cr_assert_neq(gate_conn_id(b), id, "the slot's next generation");
    cr_assert_eq(gate_conn_id(b) & 0xffffffffu, id & 0xffffffffu, "the slot is reused");
    cr_assert_null(gate_conntab_get(t, id));
    cr_assert_null(gate_conntab_get(t, 0));
    cr_assert_null(gate_conntab_get(t, 0xffffffffffffffffULL));
    gate_conntab_destroy(&t);
    cr_assert_null(t);
}

Test(conntab, binds_players_and_hands_back_the_replaced)
{
    gate_conntab_t *t = gate_conntab_new();
    uint64_t a = gate_conn_id(gate_conntab_add(t, new_fd(), GATE_TRANSPORT_TCP, NULL, 1024));
    uint64_t b = gate_conn_id(gate_conntab_add(t, new_fd(), GATE_TRANSPORT_TCP, NULL, 1024));
    cr_assert_eq(gate_conntab_bind(t, 9, a), 0);
    cr_assert_eq(gate_conntab_player_conn(t, 9), a);
    cr_assert_eq(gate_conntab_bind(t, 9, b), a, "the old connection, to replace");
    cr_assert_eq(gate_conntab_player_conn(t, 9), b);
    gate_conntab_retire(t, a);
    cr_assert_eq(gate_conntab_player_conn(t, 9), b, "retiring the replaced one keeps the binding");
    gate_conntab_retire(t, b);
    cr_assert_eq(gate_conntab_player_conn(t, 9), 0, "unbound at once, before the reap");
    gate_conntab_reap(t);
    cr_assert_eq(gate_conntab_players(t), 0);
    gate_conntab_destroy(&t);
}

Test(conntab, iterates_and_survives_retiring_while_iterating)
{
    gate_conntab_t *t = gate_conntab_new();
    for (int i = 0; i < 100; i++)
        gate_conntab_add(t, new_fd(), GATE_TRANSPORT_TCP, NULL, 1024);
    size_t cursor = 0, seen = 0;
    for (gate_conn_t *c; (c = gate_conntab_next(t, &cursor));) {
        seen++;
        if (seen % 2)
            gate_conntab_retire(t, gate_conn_id(c));
    }
    cr_assert_eq(seen, 100);
    cr_assert_eq(gate_conntab_count(t), 50);
    cursor = seen = 0;
    while (gate_conntab_next(t, &cursor))
        seen++;
    cr_assert_eq(seen, 50, "a retired connection is not iterated");
    gate_conntab_reap(t);
    cr_assert_eq(gate_conntab_count(t), 50);
    gate_conntab_destroy(&t);   /* destroys what is left, retired or not */
}

Test(conntab, a_retired_connection_writes_nothing)
{
    gate_conntab_t *t = gate_conntab_new();
    int sv[2];
    cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
    gate_conn_t *c = gate_conntab_add(t, sv[0], GATE_TRANSPORT_TCP, NULL, 1024);
    gate_conntab_retire(t, gate_conn_id(c));
    ts_msg_t bye;
    ts_msg_bye(&bye, 0, "late");
    uint8_t body[64];
    cr_assert_eq(gate_conn_send(c, body, ts_msg_encode(&bye, body, sizeof body)), 0, "no error for the caller to handle");
    cr_assert_eq(gate_conn_flush(c), 0);
    uint8_t buf[16];
    cr_assert_eq(read(sv[1], buf, sizeof buf), -1, "nothing was written");
    gate_conntab_reap(t);
    cr_assert_eq(read(sv[1], buf, sizeof buf), 0, "the reap closed the socket");
    close(sv[1]);
    gate_conntab_destroy(&t);
}
