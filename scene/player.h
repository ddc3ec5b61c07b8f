/* scene/player.h - one player's state machine (the seeds' "PlayerCharacter
 * process"): pending exchanges, the RFC 6298 estimator, counts and the
 * lag-switch flag. Pure logic; its worker thread is its only owner. */
#ifndef SCENE_PLAYER_H
#define SCENE_PLAYER_H

#include <stdbool.h>
#include <stdint.h>

#include "row.h"

#define SCENE_LOST_US 6000000  /* PROTOCOL's 5 s, plus the gate -> scene hop */

typedef struct scene_player_t scene_player_t;

typedef struct {
    int64_t lag_bound_us;   /* |client rtt - server rtt| beyond this is a strike */
    int64_t lag_strikes;    /* consecutive strikes that raise the flag */
} scene_lag_rule_t;

typedef struct {
    int64_t bound_ppm;      /* |clock rate| over this raises the speed flag (10000: 1%) */
    int64_t span_us;        /* the rate is known once the SYNCs span this */
} scene_speed_rule_t;

/* Returns NULL when out of memory. */
scene_player_t *scene_player_new(uint64_t player_id);
void scene_player_destroy(scene_player_t **self_p);

/* Records the SYNC of seq, seen at monotonic now. */
/* A SYNC of seq, seen at monotonic now_us, with the client's t1 and the
 * gate's real-time t2 (for the clock rate, scene/rate.h). Returns +1 when it
 * raised the speed flag, -1 when it cleared it, else 0. */
int scene_player_on_sync(scene_player_t *self, uint64_t seq, int64_t now_us, int64_t t1, int64_t t2,
                         const scene_speed_rule_t *speed);

typedef struct {
    int64_t rtt;     /* this exchange's sample, -1 when invalid */
    int64_t srtt, rttvar;
} scene_result_t;

/* SYNC_ACK of seq with the client's t4, t5 and the gate's monotonic t6 - t3.
 * Returns false when seq matches no pending exchange (PROTOCOL: ignored);
 * otherwise fills out and updates counts, estimator and lag flag. now_real
 * stamps updated_at. */
bool scene_player_on_ack(scene_player_t *self, uint64_t seq, int64_t t4, int64_t t5, int64_t t6_t3,
                         const int64_t *client_rtt, const int64_t *client_offset,
                         const scene_lag_rule_t *rule, int64_t now_real_us, scene_result_t *out);

/* Counts exchanges pending longer than SCENE_LOST_US as lost; returns how many. */
int scene_player_expire(scene_player_t *self, int64_t now_us, int64_t now_real_us);

void scene_player_set_online(scene_player_t *self, bool online, int64_t now_real_us);
bool scene_player_online(const scene_player_t *self);
/* Whether the lag-switch flag is up (the row's lag_flag, without making the row). */
bool scene_player_lag_flag(const scene_player_t *self);

/* Snapshot for the store, and restore from a loaded row (counts and the
 * estimator carry on). Restoring keeps the current online state. */
void scene_player_row(const scene_player_t *self, scene_row_t *row);
void scene_player_restore(scene_player_t *self, const scene_row_t *row);

uint64_t scene_player_id(const scene_player_t *self);

#endif
