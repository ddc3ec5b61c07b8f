// ticksync.hpp - libticksync for C++: RAII owners over the C API of
// ticksync.h (no second estimator), std::chrono durations, exceptions.
//
//   ticksync::Client game("127.0.0.1:7700", 42);
//   for (;;) {                                   // the game loop, once a frame
//       game.run();                              // replies in, SYNCs out, reconnects; never blocks
//       if (game.state() == ticksync::State::synced)
//           auto now = game.now();               // server time, never backwards
//   }
//
// Each reply is timed by when it reached the host (the kernel's receive
// stamp on Linux; start() runs a network thread for Windows), so run()
// once a frame does not put the clock a frame behind.
// Times are std::chrono::microseconds: server times since the Unix epoch,
// local times on the game's monotonic clock (ticksync::local_now()).
// Objects are not thread-safe, as in C. A Clock view of a Client throws
// std::logic_error once the Client is gone, as does a moved-from Client.
// Header-only; link libticksync.
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

// A refused session or a client that cannot start (code 0, reason "").
// reason() is PROTOCOL.md's name for a refusal: "replaced" (another login
// of the player took over; code 0), "UNAUTHORIZED" (a wrong or expired
// token; code 4), "UNSUPPORTED_VERSION", "NOT_AUTHENTICATED".
class error : public std::runtime_error {
public:
    error(const std::string &what, int code, std::string reason = "")
        : std::runtime_error(what), code_(code), reason_(std::move(reason)) {}
    int code() const noexcept { return code_; }
    const std::string &reason() const noexcept { return reason_; }
private:
    int code_;
    std::string reason_;
};

// What a Client is doing (ticksync_client_state_t).
enum class State {
    connecting = TICKSYNC_CLIENT_CONNECTING,    // not synced yet
    synced = TICKSYNC_CLIENT_SYNCED,            // now() is good, and stays so across a reconnect
    unreachable = TICKSYNC_CLIENT_UNREACHABLE,  // unreachable_after attempts in a row failed; retrying
    refused = TICKSYNC_CLIENT_REFUSED,          // the gate refused the session (refusal() says why)
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
    // A view of a client's clock, dead (it throws) once owner is gone.
    static Clock view(ticksync_t *clock, std::weak_ptr<ticksync_client_t> owner)
    {
        return Clock(clock, std::move(owner));
    }

    ticksync_verdict_t sample(micros t1, micros t2, micros t3, micros t4)
    {
        return ticksync_sample(h(), t1.count(), t2.count(), t3.count(), t4.count());
    }
    micros now(micros local) { return micros(ticksync_now(h(), local.count())); }
    micros error_bound(micros local) const { return micros(ticksync_error_bound(h(), local.count())); }
    micros expected_error(micros local) const { return micros(ticksync_expected_error(h(), local.count())); }
    micros offset(micros local) const { return micros(ticksync_offset(h(), local.count())); }
    micros delay() const { return micros(ticksync_delay(h())); }
    micros jitter() const { return micros(ticksync_jitter(h())); }
    double frequency() const { return ticksync_frequency(h()); }
    bool synced() const { return ticksync_synced(h()); }
    ticksync_stats_t stats() const
    {
        ticksync_stats_t s;
        ticksync_stats(h(), &s);
        return s;
    }

    // the timeline
    int64_t server_tick(const Ticks &t, micros local, double *fraction = nullptr)
    {
        ticksync_ticks_t c = t.c();
        return ticksync_server_tick(h(), &c, local.count(), fraction);
    }
    int64_t input_tick(const Ticks &t, micros local)
    {
        ticksync_ticks_t c = t.c();
        return ticksync_input_tick(h(), &c, local.count());
    }
    micros render_time(const Ticks &t, micros local)
    {
        ticksync_ticks_t c = t.c();
        return micros(ticksync_render_time(h(), &c, local.count()));
    }
    double time_scale(const Ticks &t, micros local, int64_t client_tick, double client_fraction)
    {
        ticksync_ticks_t c = t.c();
        return ticksync_time_scale(h(), &c, local.count(), client_tick, client_fraction);
    }
    void resync() { ticksync_resync(h()); }
    void resume() { ticksync_resume(h()); }   // back from pause or the background: counted, then a burst
    void path_changed() { ticksync_path_changed(h()); }   // another interface or access point: a new path at the next reply

    ticksync_t *get() const { return h(); }

private:
    struct destroy {
        void operator()(ticksync_t *c) const noexcept { ticksync_destroy(&c); }
    };
    Clock(ticksync_t *view, std::weak_ptr<ticksync_client_t> owner) : c_(view), owner_(std::move(owner)), view_(true) {}
    ticksync_t *h() const
    {
        if (!c_ || (view_ && owner_.expired()))
            throw std::logic_error("ticksync: this clock's Client was destroyed");
        return c_;
    }
    std::unique_ptr<ticksync_t, destroy> owned_;
    ticksync_t *c_;
    std::weak_ptr<ticksync_client_t> owner_;
    bool view_ = false;
};

// A session with a gate on real sockets (TCP, then UDP once synced).
class Client {
public:
    // unreachable_after: failed connection attempts in a row before state() is unreachable (0: 3).
    // A gate that refuses the connection is retried, not an exception.
    Client(const std::string &server, uint64_t player_id, const std::vector<uint8_t> &token = {}, bool udp = true,
           int unreachable_after = 0)
    {
        if (player_id == 0)
            throw std::invalid_argument("ticksync: player_id must be positive");
        ticksync_client_options_t o{};
        o.server = server.c_str();
        o.player_id = player_id;
        o.token = token.empty() ? nullptr : token.data();
        o.token_len = token.size();
        o.udp = udp;
        o.unreachable_after = unreachable_after;
        char err[TICKSYNC_ERR_MAX] = "";
        c_.reset(ticksync_client_new(&o, err), destroy());
        if (!c_)
            throw error(std::string("ticksync: ") + err, 0);
    }
    Client(const Client &) = delete;   // one session, one owner
    Client &operator=(const Client &) = delete;
    Client(Client &&) = default;
    Client &operator=(Client &&) = default;

    // Does the client's work for up to timeout (0: what is ready now, once
    // a frame). Throws ticksync::error once the gate refused the session.
    void run(std::chrono::milliseconds timeout = std::chrono::milliseconds(0))
    {
        if (ticksync_client_run(h(), static_cast<int>(timeout.count())) < 0) {
            std::string reason = refusal();
            int code = reason == "replaced" ? 0 : ticksync_session_last_error(ticksync_client_session(h()));
            throw error("ticksync: " + last_error(), code, reason);
        }
    }
    // Starts the network thread, which stamps each reply as it arrives (for
    // Windows, whose kernel gives no receive stamp). Stopped with the client.
    void start()
    {
        if (ticksync_client_start(h()) < 0)
            throw error("ticksync: cannot start the network thread", 0);
    }
    State state() const { return static_cast<State>(ticksync_client_state(h())); }
    std::string last_error() const { return ticksync_client_last_error(h()); }   // "" when nothing went wrong
    std::string refusal() const { return ticksync_client_refusal(h()); }         // "" while not refused
    Clock clock() { return Clock::view(ticksync_client_clock(h()), c_); }
    micros now() { return clock().now(local_now()); }
    bool synced() { return clock().synced(); }
    // The server's measured round trip of the last SYNC_RESULT (none yet, or
    // an invalid sample: nullopt).
    std::optional<micros> server_rtt() const
    {
        int64_t rtt = -1, srtt = 0, rttvar = 0;
        ticksync_session_server_rtt(ticksync_client_session(h()), &rtt, &srtt, &rttvar);
        return rtt >= 0 ? std::optional<micros>(micros(rtt)) : std::nullopt;
    }
    unsigned connects() const { return ticksync_client_connects(h()); }
    ticksync_client_t *get() const noexcept { return c_.get(); }

private:
    struct destroy {
        void operator()(ticksync_client_t *c) const noexcept { ticksync_client_destroy(&c); }
    };
    ticksync_client_t *h() const
    {
        if (!c_)
            throw std::logic_error("ticksync: use of a moved-from Client");
        return c_.get();
    }
    std::shared_ptr<ticksync_client_t> c_;   // shared only with its clock views' weak_ptrs
};

} // namespace ticksync

#endif
