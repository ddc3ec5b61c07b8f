/* ticksync.h - libticksync, what a game embeds to know the server's time.
 *
 * Three layers, each usable alone:
 *
 *   ticksync_t          the clock estimator. Pure arithmetic, no I/O, no
 *                       clock reads: the game hands it each exchange's four
 *                       timestamps and asks it for server time.
 *   ticksync_session_t  PROTOCOL.md's client side as a state machine over
 *                       byte buffers (HELLO, SYNC, SYNC_ACK, WELCOME's
 *                       udp_key and the UDP datagram layout), for games with
 *                       their own networking.
 *   ticksync_client_t   the session on real sockets (TCP, then UDP once
 *                       synced), reconnecting by itself: a C game client in
 *                       a few lines.
 *
 * Times are int64 microseconds. "Local" times come from the game's own
 * monotonic clock (ticksync_local_us() is one); server times are the
 * server's Unix-epoch microseconds. Objects are not thread-safe; use each
 * from one thread. Nothing allocates after _new. */
#ifndef TICKSYNC_H
#define TICKSYNC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32) && defined(TICKSYNC_BUILD)
#define TICKSYNC_API __declspec(dllexport)   /* building ticksync.dll: these, and only these, are exported */
#elif defined(_WIN32)
#define TICKSYNC_API                         /* a game links the import library or the static one */
#elif defined(__GNUC__)
#define TICKSYNC_API __attribute__((visibility("default")))
#else
#define TICKSYNC_API
#endif

#define TICKSYNC_ERR_MAX    256  /* bytes of the err buffer ticksync_client_new fills */
#define TICKSYNC_FILTER_MAX 32   /* most samples in the clock filter */
#define TICKSYNC_POINTS_MAX 64   /* most points in the drift regression */

/* ---- the estimator ---------------------------------------------------- */

typedef struct {
    int64_t max_rtt_us;          /* a longer round trip is rejected (500000) */
    double  max_delay_dev_ratio; /* reject a delay this many deviations above the filter's minimum (10, as chrony) */
    int     filter_size;         /* the clock filter: the minimum-delay of the last N samples wins (8) */
    int     burst;               /* exchanges at burst_interval at start and after a path change (6) */
    int64_t burst_interval_us;   /* (100000) */
    int64_t interval_us;         /* then one exchange per interval (1000000; WELCOME's sync_interval_ms) */
    double  max_slew;            /* correction per second of local time, at most (0.05 = 50 ms/s) */
    int64_t step_us;             /* a forward error larger than this is stepped, not slewed (200000) */
    double  up_fraction;         /* share of the round trip on the way up; 0.5 is symmetric */
    int     drift_points;        /* near-minimum samples the offset line is fitted to (64) */
    int64_t drift_min_span_us;   /* no frequency estimate before the samples span this (20 s) */
    int64_t path_change_us;      /* a delay rise over the filter's minimum by this much ... (20000) */
    int     path_change_count;   /* ... in this many samples in a row resets the filter, or more where the
                                    path's own queueing passes the rise often (6) */
    int     synced_samples;      /* accepted samples before the clock counts as synced (4) */
    int64_t server_step_us;      /* a sample this far below one way's lower edge, above the other's, is the
                                    server's time stepping (2 in a row with one size: the step; an outlier's
                                    round trip too, paired with another); less far once the model's own
                                    error of the edges is less, down to 0.5 ms (4000) */
    int64_t resume_gap_us;       /* ticksync_now asked after this long, and 8 times its usual gap, is a
                                    resume (2000000) */
    int64_t interval_max_us;     /* the interval doubles up to this while the clock's rate is steady and it
                                    predicts each sample, and is back to interval_us at the first it does not
                                    (interval_us: fixed; 2 x interval_us: a third fewer exchanges on a
                                    steady path for the same accuracy, 4 x: about half; a rate that
                                    walks pays for it, bench/RESULTS.md 5.I) */
} ticksync_config_t;

typedef enum {
    TICKSYNC_ACCEPTED = 0,
    TICKSYNC_REJECTED_BAD,       /* timestamps that cannot be: a negative round trip, a time beyond
                                    ±2^60 µs, a local time over max_rtt_us behind the newest exchange's */
    TICKSYNC_REJECTED_RTT,       /* over max_rtt_us */
    TICKSYNC_REJECTED_DEV,       /* over the delay-deviation ratio: never admitted, though still read for
                                    a server step where one way is below its edge; or a reply from the
                                    route before ticksync_path_changed */
} ticksync_verdict_t;

typedef struct {
    uint64_t samples, accepted, rejected_rtt, rejected_dev, rejected_bad;
    uint64_t steps;              /* forward steps of the shown time */
    uint64_t path_resets;        /* a new route, or a history that straddled a server step no test
                                    could see (one in the burst that starts a path): filter and
                                    history started over */
    uint64_t server_steps;       /* the server's time stepped (its host's clock, or another gate's):
                                    the history was moved by the step, the drift kept */
    uint64_t resumes;            /* a gap in the local times ticksync_now was asked at (the game was
                                    paused or in the background): a burst of exchanges followed */
} ticksync_stats_t;

typedef struct ticksync_t ticksync_t;

/* Fills the defaults above. */
TICKSYNC_API void ticksync_config_default(ticksync_config_t *cfg);

/* config NULL: the defaults. Returns NULL when out of memory or when a
 * setting is out of range. */
TICKSYNC_API ticksync_t *ticksync_new(const ticksync_config_t *config);
TICKSYNC_API void ticksync_destroy(ticksync_t **self_p);

/* Sets the steady interval (from WELCOME's sync_interval_ms). */
TICKSYNC_API void ticksync_set_interval(ticksync_t *self, int64_t interval_us);

/* One exchange: t1 local send of SYNC, t2 and t3 from SYNC_REPLY, t4 local
 * arrival of SYNC_REPLY. */
TICKSYNC_API ticksync_verdict_t ticksync_sample(ticksync_t *self, int64_t t1, int64_t t2, int64_t t3, int64_t t4);

/* Records that a SYNC left at local time local (for ticksync_next_sync). */
TICKSYNC_API void ticksync_sent(ticksync_t *self, int64_t local);

/* The server time now. Never less than any value it returned before:
 * corrections are slewed at max_slew, and only a forward error over step_us
 * is stepped. 0 before the first accepted sample. */
TICKSYNC_API int64_t ticksync_now(ticksync_t *self, int64_t local);

/* Local time at which the next SYNC is due (at once before the first). */
TICKSYNC_API int64_t ticksync_next_sync(const ticksync_t *self);

/* True until the clock is synced: keep exchanges on the reliable path. */
TICKSYNC_API bool ticksync_needs_reliable(const ticksync_t *self);
TICKSYNC_API bool ticksync_synced(const ticksync_t *self);

/* How long ago (µs) the server stamped server_time, as of local; INT64_MAX or INT64_MIN where the
 * difference does not fit (a stamp no clock reads). */
TICKSYNC_API int64_t ticksync_message_age(ticksync_t *self, int64_t server_time, int64_t local);

/* The ± bound (µs) of ticksync_now's error at local: the asymmetry the
 * chosen sample's delay allows, what the drift may have added since, and
 * how far the time shown lies from that sample carried to local (the
 * line through the ways' edges, or a correction still being slewed).
 * INT64_MAX before the first sample. */
TICKSYNC_API int64_t ticksync_error_bound(const ticksync_t *self, int64_t local);
/* The error (µs) that ticksync_now(local) stays within about 95% of the
 * time, from what the estimator knows: how much queueing each way's least
 * measurement still holds, the drift's uncertainty, the bend a changing
 * drift puts in the edges, any slewing left. It cannot know the path's
 * asymmetry (the bound allows for it; set up_fraction if you do). Far
 * tighter than the bound, which holds always, and never more than it;
 * use it to decide (is this clock good enough to schedule a hit to the
 * millisecond?), the bound to guarantee. */
TICKSYNC_API int64_t ticksync_expected_error(const ticksync_t *self, int64_t local);

/* The estimate itself: offset (server - local) at local, the chosen
 * sample's round trip, and the frequency error (local clock rate minus the
 * server's, e.g. 2e-4 for 200 ppm fast). */
TICKSYNC_API int64_t ticksync_offset(const ticksync_t *self, int64_t local);
TICKSYNC_API int64_t ticksync_delay(const ticksync_t *self);
TICKSYNC_API double  ticksync_frequency(const ticksync_t *self);
TICKSYNC_API void    ticksync_stats(const ticksync_t *self, ticksync_stats_t *out);

/* CLOCK_MONOTONIC in µs: a local clock for games that have none. */
TICKSYNC_API int64_t ticksync_local_us(void);

/* ---- the timeline: the game's side of ticks --------------------------- *
 *
 * Games simulate in fixed ticks; each frame a netcode loop asks which tick
 * the server is on, which tick to stamp an input for, how far behind to
 * render others, and how fast to run its own simulation. Times are server
 * times (µs) except local. The answers follow ticksync_now, so they never
 * run backwards either; a change of the path's delay or jitter moves them
 * at 1 +- max_scale, never by a jump back. */

typedef struct {
    int64_t tick_us;    /* the server's simulation step, e.g. 16667 for 60 Hz */
    int64_t epoch_us;   /* server time of tick 0 */
    double  margin;     /* safety margin, in units of the round trip's jitter (2.0) */
    double  max_scale;  /* the client's simulation runs at 1 +- max_scale at most (0.05) */
} ticksync_ticks_t;

/* The defaults above for a server ticking every tick_us from epoch_us. */
TICKSYNC_API void    ticksync_ticks_default(ticksync_ticks_t *t, int64_t tick_us, int64_t epoch_us);
/* The tick the server is simulating at local, and how far into it (0..1). */
TICKSYNC_API int64_t ticksync_server_tick(ticksync_t *clock, const ticksync_ticks_t *t, int64_t local,
                                          double *fraction);
/* The tick an input made at local must be stamped for so that it reaches the
 * server before the server simulates that tick: ahead of the server tick by
 * the way up plus margin x jitter, and one tick more where the jitter
 * leaves spikes out (below): the input's copy in the next frame's packet,
 * as game netcode sends it, is then in time after a spiked packet. While
 * the exchanges meet a queue on the way up (two in a row over the least
 * round trip), the lead takes that queue too. Never decreases. */
TICKSYNC_API int64_t ticksync_input_tick(ticksync_t *clock, const ticksync_ticks_t *t, int64_t local);
/* Server time at which to render other entities: behind by the way down plus
 * margin x jitter plus one tick. Never decreases. */
TICKSYNC_API int64_t ticksync_render_time(ticksync_t *clock, const ticksync_ticks_t *t, int64_t local);
/* The round trip's jitter (µs) as the estimator sees it: half the 99th
 * percentile of the last 512 round trips' excess over the filter's least
 * one (those rejected as outliers included: a game's messages meet them
 * too), so the default margin of 2 covers about that much of one way's
 * queueing. When that 99th is over three times the 97th, the tail is
 * spikes no sane lead beats (a radio waking, a handover), and the 97th is
 * used instead. */
TICKSYNC_API int64_t ticksync_jitter(const ticksync_t *clock);
/* The speed (1 +- max_scale) at which the game should run its own simulation,
 * now at client_tick + client_fraction, to converge on ticksync_input_tick
 * without a jump. */
TICKSYNC_API double  ticksync_time_scale(ticksync_t *clock, const ticksync_ticks_t *t, int64_t local,
                                         int64_t client_tick, double client_fraction);
/* Starts a burst of exchanges now (a manual re-sync, after a reconnect or a
 * level load). */
TICKSYNC_API void    ticksync_resync(ticksync_t *clock);
/* The game's platform says the network path changed (another interface or
 * access point: Android's ConnectivityManager callbacks, iOS's
 * NWPathMonitor, the browser's navigator.connection "change"). The first
 * reply to a request sent after this starts a new path, as one the
 * samples tell does (ticksync_stats_t.path_resets: the drift carried, the
 * shown time slewed, never stepped back), without waiting for the samples
 * to prove it; a reply to an earlier request that arrives after that is
 * the old route's and is rejected (TICKSYNC_REJECTED_DEV). A burst
 * follows. A needless call costs the few seconds a new path takes to
 * settle (bench/RESULTS.md 5.H). */
TICKSYNC_API void    ticksync_path_changed(ticksync_t *clock);
/* The game says it was paused or in the background (a tab shown again, an
 * app back from suspension): as a gap the clock notices itself, it counts
 * in ticksync_stats_t.resumes and starts a burst. */
TICKSYNC_API void    ticksync_resume(ticksync_t *clock);

/* ---- the protocol session --------------------------------------------- */

typedef enum {
    TICKSYNC_SESSION_NEW,        /* HELLO not yet answered */
    TICKSYNC_SESSION_WELCOMED,
    TICKSYNC_SESSION_CLOSED,     /* BYE, or an error that closes */
} ticksync_session_state_t;

typedef struct ticksync_session_t ticksync_session_t;

/* token may be NULL (open mode). config as for ticksync_new. */
TICKSYNC_API ticksync_session_t *ticksync_session_new(uint64_t player_id, const uint8_t *token, size_t token_len,
                                         const ticksync_config_t *config);
TICKSYNC_API void ticksync_session_destroy(ticksync_session_t **self_p);

/* Starts over for a new connection (the clock estimate is kept). */
TICKSYNC_API void ticksync_session_reset(ticksync_session_t *self);

/* Each writes one message (msgpack, no frame header) into buf and returns
 * its length, or 0 when there is nothing to send or it does not fit.
 * hello: the HELLO. sync: a SYNC when one is due at local, else 0. */
TICKSYNC_API size_t ticksync_session_hello(ticksync_session_t *self, uint8_t *buf, size_t cap);
TICKSYNC_API size_t ticksync_session_sync(ticksync_session_t *self, int64_t local, uint8_t *buf, size_t cap);

/* Takes one message from the server, received at local. When it calls for
 * an answer (a SYNC_ACK for a SYNC_REPLY) the answer is written to reply
 * and its length returned; otherwise 0. -1 when the message does not
 * decode or the session is now closed. */
TICKSYNC_API int ticksync_session_receive(ticksync_session_t *self, const uint8_t *msg, size_t len, int64_t local,
                             uint8_t *reply, size_t cap);
/* The same with the message's arrival told apart from now: arrived is the
 * local time the bytes reached the host (a kernel receive stamp, or the
 * moment a network thread read them), which the clock takes as t4; local
 * is now, when the answer leaves (its t5), so the server removes the time
 * the game took to get to the message from its own round trip. */
TICKSYNC_API int ticksync_session_receive_at(ticksync_session_t *self, const uint8_t *msg, size_t len,
                                             int64_t arrived, int64_t local, uint8_t *reply, size_t cap);

TICKSYNC_API ticksync_session_state_t ticksync_session_state(const ticksync_session_t *self);
TICKSYNC_API ticksync_t *ticksync_session_clock(ticksync_session_t *self);
/* WELCOME's values: session id, and whether it handed out a udp_key. */
TICKSYNC_API uint64_t ticksync_session_id(const ticksync_session_t *self);
TICKSYNC_API bool     ticksync_session_udp_ready(const ticksync_session_t *self);
/* The last SYNC_RESULT: the server's measured rtt (-1: invalid) and its
 * smoothed values; the last ERROR code (0: none). */
TICKSYNC_API void ticksync_session_server_rtt(const ticksync_session_t *self, int64_t *rtt, int64_t *srtt, int64_t *rttvar);
TICKSYNC_API int  ticksync_session_last_error(const ticksync_session_t *self);
/* The last ERROR's message text ("" before one). */
TICKSYNC_API const char *ticksync_session_error_text(const ticksync_session_t *self);
/* True after the gate said BYE "replaced": another login took the player. */
TICKSYNC_API bool ticksync_session_replaced(const ticksync_session_t *self);

/* UDP: wraps a message as a datagram (session id, SipHash tag) and unwraps
 * one from the server, checking its tag. Return the length (for unwrap,
 * *msg points into the datagram), or 0 when it does not fit or is not
 * authentic. */
TICKSYNC_API size_t ticksync_session_udp_wrap(const ticksync_session_t *self, const uint8_t *msg, size_t len, uint8_t *out,
                                 size_t cap);
TICKSYNC_API size_t ticksync_session_udp_unwrap(const ticksync_session_t *self, const uint8_t *dgram, size_t len,
                                   const uint8_t **msg);

/* ---- the socket client ------------------------------------------------ */

typedef struct {
    const char        *server;      /* gate "HOST:PORT" (TCP, and UDP on the same port) */
    uint64_t           player_id;
    const uint8_t     *token;       /* NULL: open mode */
    size_t             token_len;
    bool               udp;         /* move exchanges to UDP once synced */
    const ticksync_config_t *clock; /* NULL: defaults */
    int                unreachable_after; /* connection attempts in a row that fail before the state says
                                             TICKSYNC_CLIENT_UNREACHABLE (0: 3); the client keeps retrying */
} ticksync_client_options_t;

typedef enum {
    TICKSYNC_CLIENT_CONNECTING,  /* not synced yet: connecting, logging in, or the first exchanges */
    TICKSYNC_CLIENT_SYNCED,      /* the clock is synced (it stays so while a lost connection is made again) */
    TICKSYNC_CLIENT_UNREACHABLE, /* unreachable_after attempts in a row failed; still retrying, with backoff,
                                    and the clock (if it was synced) runs on from its last estimate */
    TICKSYNC_CLIENT_REFUSED,     /* the gate refused the session (ticksync_client_refusal says why); the
                                    client has stopped: make a new one to try again */
} ticksync_client_state_t;

typedef struct ticksync_client_t ticksync_client_t;

/* Connects and sends HELLO. Returns NULL with a reason in err
 * (TICKSYNC_ERR_MAX bytes). */
TICKSYNC_API ticksync_client_t *ticksync_client_new(const ticksync_client_options_t *options, char *err);
TICKSYNC_API void ticksync_client_destroy(ticksync_client_t **self_p);

/* Does the client's work for up to timeout_ms (0: what is ready now):
 * reads replies, sends what is due, and reconnects (with backoff) after a
 * lost connection. Call it once a frame with 0, as engines do: each reply
 * is timed by when it reached the host, not when run got to it (Linux's
 * kernel receive stamp on TCP and UDP; elsewhere start the network thread),
 * so the frame rate does not bias the clock. Returns 0, or -1 once the
 * gate has refused the session (state TICKSYNC_CLIENT_REFUSED). */
TICKSYNC_API int ticksync_client_run(ticksync_client_t *self, int timeout_ms);

/* Starts the client's network thread: it blocks in poll on the client's
 * sockets and reads each reply the moment it arrives, stamping it then, so
 * replies are timed right where the kernel gives no receive stamp
 * (Windows). ticksync_client_run still does everything else on the game's
 * thread and is called as before; the clock is only ever touched there,
 * so its reads take no lock. Stopped by _destroy. Returns 0, or -1 when no
 * thread can be started. */
TICKSYNC_API int ticksync_client_start(ticksync_client_t *self);

TICKSYNC_API ticksync_client_state_t ticksync_client_state(const ticksync_client_t *self);
/* What went wrong last, as a sentence ("" when nothing has): a connect
 * that failed, a lost connection, an ERROR from the gate. */
TICKSYNC_API const char *ticksync_client_last_error(const ticksync_client_t *self);
/* Why the gate refused the session, as docs/PROTOCOL.md names it: "replaced"
 * (another login of the player took it over, BYE "replaced"), or a closing
 * ERROR: "UNAUTHORIZED" (a wrong or expired token), "UNSUPPORTED_VERSION",
 * "NOT_AUTHENTICATED". "" while not refused. */
TICKSYNC_API const char *ticksync_client_refusal(const ticksync_client_t *self);

TICKSYNC_API ticksync_t         *ticksync_client_clock(ticksync_client_t *self);
TICKSYNC_API ticksync_session_t *ticksync_client_session(ticksync_client_t *self);
/* Connections made so far (1 after _new; more after reconnects). */
TICKSYNC_API unsigned ticksync_client_connects(const ticksync_client_t *self);

#ifdef __cplusplus
}
#endif

#endif
