/* scene/row.h - one player's stored latency: a row of table player_latency
 * (DESIGN.md "Storage"). Integers, microseconds. */
#ifndef SCENE_ROW_H
#define SCENE_ROW_H

#include <stdint.h>

#include "history.h"

typedef struct {
    uint64_t player_id;
    int64_t  rtt_us;            /* last valid sample */
    int64_t  srtt_us, rttvar_us, min_rtt_us;
    int64_t  samples, invalid, lost;
    int64_t  client_rtt_us, client_offset_us;   /* as the client last reported */
    int64_t  updated_at_us;     /* server real time of the last change */
    int64_t  lag_flag;          /* 1 while client and server rtt keep disagreeing */
    int64_t  lag_strikes;       /* consecutive disagreeing exchanges */
    int64_t  online;            /* 1 while a gate holds the player's session */
    int64_t  clock_rate_ppm;    /* the client's clock rate against the server's (+: fast), when known */
    int64_t  clock_rate_known;  /* 0: not yet (stored as NULL) */
    int64_t  speed_flag;        /* 1 while |clock_rate_ppm| is over the speed bound */
    scene_history_row_t step;   /* the open history step so far (t_us 0: none), columns step_*: written
                                 * with the row, so a SIGKILL loses no more history than rows */
} scene_row_t;

#endif
