/* scene/player.c - see player.h. */
#include "player.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rate.h"
#include "rtt.h"

#define PENDING 16

typedef struct {
    uint64_t seq;
    int64_t  since;   /* monotonic time the SYNC was seen */
    bool     used;
} pending_t;

struct scene_player_t {
    scene_row_t row;      /* counts, client values, flags (estimator fields filled on snapshot) */
    ts_rtt_t    rtt;
    pending_t   pending[PENDING];
    scene_rate_t rate;
};

scene_player_t *scene_player_new(uint64_t player_id)
{
    scene_player_t *self = calloc(1, sizeof *self);
    if (self)
        self->row.player_id = player_id;
    return self;
}

void scene_player_destroy(scene_player_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    free(*self_p);
    *self_p = NULL;
}

uint64_t scene_player_id(const scene_player_t *self) { return self->row.player_id; }

int scene_player_on_sync(scene_player_t *self, uint64_t seq, int64_t now_us, int64_t t1, int64_t t2,
                         const scene_speed_rule_t *speed)
{
    pending_t *slot = NULL;
    for (int i = 0; i < PENDING; i++) {
        pending_t *p = &self->pending[i];
        if (p->used && p->seq == seq) {   /* a reused seq starts over */
            slot = p;
            break;
        }
        if (!p->used && !slot)
            slot = p;
    }
    if (!slot) {                          /* full: the oldest is lost */
        slot = &self->pending[0];
        for (int i = 1; i < PENDING; i++)
            if (self->pending[i].since < slot->since)
                slot = &self->pending[i];
        self->row.lost++;
    }
    *slot = (pending_t) { .seq = seq, .since = now_us, .used = true };
    if (self->rate.span_us != speed->span_us)
        scene_rate_init(&self->rate, speed->span_us);
    scene_rate_add(&self->rate, t1, t2);
    if (!scene_rate_known(&self->rate))
        return 0;
    double ppm = scene_rate_ppm(&self->rate);
    int64_t was = self->row.speed_flag;
    self->row.clock_rate_ppm = llround(ppm);
    self->row.clock_rate_known = 1;
    self->row.speed_flag = fabs(ppm) > (double) speed->bound_ppm;
    return (int) (self->row.speed_flag - was);
}

static void judge_lag(scene_player_t *self, int64_t server_rtt, int64_t client_rtt, const scene_lag_rule_t *rule)
{
    int64_t d = client_rtt - server_rtt;
    if (d < 0)
        d = -d;
    if (d > rule->lag_bound_us) {
        if (++self->row.lag_strikes >= rule->lag_strikes)
            self->row.lag_flag = 1;
    } else {
        self->row.lag_strikes = 0;
        self->row.lag_flag = 0;
    }
}

bool scene_player_on_ack(scene_player_t *self, uint64_t seq, int64_t t4, int64_t t5, int64_t t6_t3,
                         const int64_t *client_rtt, const int64_t *client_offset,
                         const scene_lag_rule_t *rule, int64_t now_real_us, scene_result_t *out)
{
    pending_t *p = NULL;
    for (int i = 0; i < PENDING && !p; i++)
        if (self->pending[i].used && self->pending[i].seq == seq)
            p = &self->pending[i];
    if (!p)
        return false;
    p->used = false;
    int64_t sample = ts_rtt_sample(t6_t3, t4, t5);
    if (sample < 0) {
        self->row.invalid++;
    } else {
        ts_rtt_update(&self->rtt, sample);
        self->row.samples++;
        if (client_rtt)
            judge_lag(self, sample, *client_rtt, rule);
    }
    if (client_rtt)
        self->row.client_rtt_us = *client_rtt;
    if (client_offset)
        self->row.client_offset_us = *client_offset;
    self->row.updated_at_us = now_real_us;
    out->rtt = sample;
    out->srtt = ts_rtt_srtt(&self->rtt);
    out->rttvar = ts_rtt_rttvar(&self->rtt);
    return true;
}

int scene_player_expire(scene_player_t *self, int64_t now_us, int64_t now_real_us)
{
    int lost = 0;
    for (int i = 0; i < PENDING; i++) {
        pending_t *p = &self->pending[i];
        if (p->used && now_us - p->since > SCENE_LOST_US) {
            p->used = false;
            lost++;
        }
    }
    if (lost) {
        self->row.lost += lost;
        self->row.updated_at_us = now_real_us;
    }
    return lost;
}

void scene_player_set_online(scene_player_t *self, bool online, int64_t now_real_us)
{
    self->row.online = online;
    self->row.updated_at_us = now_real_us;
}

bool scene_player_lag_flag(const scene_player_t *self)
{
    return self->row.lag_flag != 0;
}

bool scene_player_online(const scene_player_t *self)
{
    return self->row.online != 0;
}

void scene_player_row(const scene_player_t *self, scene_row_t *row)
{
    *row = self->row;
    row->rtt_us = self->rtt.last;
    row->srtt_us = ts_rtt_srtt(&self->rtt);
    row->rttvar_us = ts_rtt_rttvar(&self->rtt);
    row->min_rtt_us = self->rtt.min_rtt;
    row->step = (scene_history_row_t) { .player_id = row->player_id };   /* the worker's to fill */
}

void scene_player_restore(scene_player_t *self, const scene_row_t *row)
{
    int64_t online = self->row.online;
    self->row = *row;
    self->row.online = online;
    ts_rtt_restore(&self->rtt, row->srtt_us, row->rttvar_us, row->min_rtt_us, row->rtt_us);
}
