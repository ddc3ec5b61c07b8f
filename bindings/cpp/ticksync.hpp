// ticksync.hpp - libticksync for C++: RAII owners over the C API of
// ticksync.h (no second estimator), std::chrono durations, exceptions.
//
//   ticksync::Client game("127.0.0.1:7700", 42);
//   for (;;) {                                   // the game loop
//       game.run();                              // replies in, SYNCs out, reconnects
//       auto now = game.now();                   // server time, never backwards
//   }
//
// Times are std::chrono::microseconds: server times since the Unix epoch,
// local times on the game's monotonic clock (ticksync::local_now()).
// Objects are not thread-safe, as in C. Header-only; link libticksync.
#ifndef TICKSYNC_HPP
#define TICKSYNC_HPP

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "ticksync.h"

namespace ticksync {

using micros = std::chrono::microseconds;

// A refused session (code: the PROTOCOL error, e.g. 4 UNAUTHORIZED) or a
// client that cannot start (code 0).
class error : public std::runtime_error {
public:
    error(const std::string &what, int code) : std::runtime_error(what), code_(code) {}
    int code() const noexcept { return code_; }
private:
    int code_;
};

inline micros local_now() { return micros(ticksync_local_us()); }

struct Ticks {
    micros tick, epoch;
    double margin = 2.0, max_scale = 0.05;
    ticksync_ticks_t c() const { return { tick.count(), epoch.count(), margin, max_scale }; }
};

// The clock estimator: owned (constructed), or a view of a client's clock.
class Clock {
public:
    explicit Clock(const ticksync_config_t *config = nullptr) : owned_(ticksync_new(config)), c_(owned_.get())
    {
        if (!c_)
            throw std::invalid_argument("ticksync: a clock setting is out of range");
    }
    static Clock view(ticksync_t *clock) { return Clock(clock); }

    ticksync_verdict_t sample(micros t1, micros t2, micros t3, micros t4)
    {
        return ticksync_sample(c_, t1.count(), t2.count(), t3.count(), t4.count());
    }
    micros now(micros local) { return micros(ticksync_now(c_, local.count())); }
    micros error_bound(micros local) const { return micros(ticksync_error_bound(c_, local.count())); }
    micros expected_error(micros local) const { return micros(ticksync_expected_error(c_, local.count())); }
    micros offset(micros local) const { return micros(ticksync_offset(c_, local.count())); }
    micros delay() const { return micros(ticksync_delay(c_)); }
    micros jitter() const { return micros(ticksync_jitter(c_)); }
    double frequency() const { return ticksync_frequency(c_); }
    bool synced() const { return ticksync_synced(c_); }
    ticksync_stats_t stats() const
    {
        ticksync_stats_t s;
        ticksync_stats(c_, &s);
        return s;
    }

    // the timeline
    int64_t server_tick(const Ticks &t, micros local, double *fraction = nullptr)
    {
        ticksync_ticks_t c = t.c();
        return ticksync_server_tick(c_, &c, local.count(), fraction);
    }
    int64_t input_tick(const Ticks &t, micros local)
    {
        ticksync_ticks_t c = t.c();
        return ticksync_input_tick(c_, &c, local.count());
    }
    micros render_time(const Ticks &t, micros local)
    {
        ticksync_ticks_t c = t.c();
        return micros(ticksync_render_time(c_, &c, local.count()));
    }
    double time_scale(const Ticks &t, micros local, int64_t client_tick, double client_fraction)
    {
        ticksync_ticks_t c = t.c();
        return ticksync_time_scale(c_, &c, local.count(), client_tick, client_fraction);
    }
    void resync() { ticksync_resync(c_); }
    void resume() { ticksync_resume(c_); }   // back from pause or the background: counted, then a burst

    ticksync_t *get() const noexcept { return c_; }

private:
    struct destroy {
        void operator()(ticksync_t *c) const noexcept { ticksync_destroy(&c); }
    };
    explicit Clock(ticksync_t *view) : c_(view) {}
    std::unique_ptr<ticksync_t, destroy> owned_;
    ticksync_t *c_;
};

// A session with a gate on real sockets (TCP, then UDP once synced).
class Client {
public:
    Client(const std::string &server, uint64_t player_id, const std::vector<uint8_t> &token = {}, bool udp = true)
    {
        if (player_id == 0)
            throw std::invalid_argument("ticksync: player_id must be positive");
        ticksync_client_options_t o{};
        o.server = server.c_str();
        o.player_id = player_id;
        o.token = token.empty() ? nullptr : token.data();
        o.token_len = token.size();
        o.udp = udp;
        char err[TICKSYNC_ERR_MAX] = "";
        c_.reset(ticksync_client_new(&o, err));
        if (!c_)
            throw error(std::string("ticksync: ") + err, 0);
    }

    // Does the client's work for up to timeout. Throws ticksync::error when
    // the gate refused the session.
    void run(std::chrono::milliseconds timeout = std::chrono::milliseconds(0))
    {
        if (ticksync_client_run(c_.get(), static_cast<int>(timeout.count())) < 0) {
            int code = ticksync_session_last_error(ticksync_client_session(c_.get()));
            throw error("ticksync: the gate refused the session (error " + std::to_string(code) + ")", code);
        }
    }
    Clock clock() { return Clock::view(ticksync_client_clock(c_.get())); }
    micros now() { return clock().now(local_now()); }
    bool synced() { return clock().synced(); }
    // The server's measured round trip of the last SYNC_RESULT (none yet, or
    // an invalid sample: nullopt).
    std::optional<micros> server_rtt() const
    {
        int64_t rtt = -1, srtt = 0, rttvar = 0;
        ticksync_session_server_rtt(ticksync_client_session(c_.get()), &rtt, &srtt, &rttvar);
        return rtt >= 0 ? std::optional<micros>(micros(rtt)) : std::nullopt;
    }
    unsigned connects() const { return ticksync_client_connects(c_.get()); }
    ticksync_client_t *get() const noexcept { return c_.get(); }

private:
    struct destroy {
        void operator()(ticksync_client_t *c) const noexcept { ticksync_client_destroy(&c); }
    };
    std::unique_ptr<ticksync_client_t, destroy> c_;
};

} // namespace ticksync

#endif
