"""ticksync: libticksync for Python, through ctypes.

A thin layer over the C API of ticksync.h: the estimator (Clock), the
socket client (Client) and the game's timeline (Ticks), with no second
estimator in Python. Times are int microseconds: server times since the
Unix epoch, local times on a monotonic clock (local_us()).

    import ticksync
    game = ticksync.Client("127.0.0.1:7700", player_id=42)
    while True:                      # the game loop, once a frame
        game.run(0)                  # replies in, SYNCs out, reconnects; never blocks
        if game.state == "synced":
            now = game.now()         # server time, never backwards

Each reply is timed by when it reached the host (the kernel's receive
stamp on Linux; Client.start() runs a network thread for platforms with
none), so calling run(0) once a frame does not put the clock a frame
behind. A closed Client, and every Clock view of it, raises ValueError.

The library is found in TICKSYNC_LIB, else by the system's loader
(libticksync.so.0 as `cmake --install` puts it).
"""
import ctypes
import ctypes.util
import os

__all__ = ["Clock", "Client", "Ticks", "TicksyncError", "SessionRefused", "local_us", "ACCEPTED"]

ACCEPTED, REJECTED_BAD, REJECTED_RTT, REJECTED_DEV = 0, 1, 2, 3
ERR_MAX = 256
ERROR_NAMES = {1: "BAD_FRAME", 2: "BAD_MESSAGE", 3: "UNSUPPORTED_VERSION", 4: "UNAUTHORIZED",
               5: "NOT_AUTHENTICATED", 6: "RATE_LIMITED", 7: "UNAVAILABLE", 8: "TOO_LARGE"}


class TicksyncError(Exception):
    """A client that cannot start (no address, no connection)."""


class SessionRefused(TicksyncError):
    """The gate refused the session. .reason is docs/PROTOCOL.md's name for it: "replaced" (another
    login of the player took over), "UNAUTHORIZED" (a wrong or expired token), "UNSUPPORTED_VERSION",
    "NOT_AUTHENTICATED"; .code is the protocol's error code (4: UNAUTHORIZED; 0 for replaced)."""

    def __init__(self, code, reason, detail=""):
        super().__init__("the gate refused the session: %s%s" % (reason, " (%s)" % detail if detail else ""))
        self.code = code
        self.reason = reason


CLIENT_STATES = ("connecting", "synced", "unreachable", "refused")


def _load():
    path = os.environ.get("TICKSYNC_LIB") or ctypes.util.find_library("ticksync") or "libticksync.so.0"
    try:
        return ctypes.CDLL(path)
    except OSError as e:
        raise ImportError("libticksync not found (%s): set TICKSYNC_LIB to libticksync.so" % e) from None


_lib = _load()
_i64, _u64, _p = ctypes.c_int64, ctypes.c_uint64, ctypes.c_void_p


class _Ticks(ctypes.Structure):
    _fields_ = [("tick_us", _i64), ("epoch_us", _i64), ("margin", ctypes.c_double), ("max_scale", ctypes.c_double)]


class _Stats(ctypes.Structure):
    _fields_ = [(n, _u64) for n in ("samples", "accepted", "rejected_rtt", "rejected_dev", "rejected_bad", "steps",
                                    "path_resets", "server_steps", "resumes")]


class _ClientOptions(ctypes.Structure):
    _fields_ = [("server", ctypes.c_char_p), ("player_id", _u64), ("token", ctypes.c_char_p),
                ("token_len", ctypes.c_size_t), ("udp", ctypes.c_bool), ("clock", _p),
                ("unreachable_after", ctypes.c_int)]


def _fn(name, restype, *argtypes):
    f = getattr(_lib, name)
    f.restype, f.argtypes = restype, list(argtypes)
    return f


_new = _fn("ticksync_new", _p, _p)
_destroy = _fn("ticksync_destroy", None, ctypes.POINTER(_p))
_sample = _fn("ticksync_sample", ctypes.c_int, _p, _i64, _i64, _i64, _i64)
_now = _fn("ticksync_now", _i64, _p, _i64)
_bound = _fn("ticksync_error_bound", _i64, _p, _i64)
_expected = _fn("ticksync_expected_error", _i64, _p, _i64)
_offset = _fn("ticksync_offset", _i64, _p, _i64)
_delay = _fn("ticksync_delay", _i64, _p)
_jitter = _fn("ticksync_jitter", _i64, _p)
_frequency = _fn("ticksync_frequency", ctypes.c_double, _p)
_synced = _fn("ticksync_synced", ctypes.c_bool, _p)
_stats = _fn("ticksync_stats", None, _p, ctypes.POINTER(_Stats))
_local = _fn("ticksync_local_us", _i64)
_ticks_default = _fn("ticksync_ticks_default", None, ctypes.POINTER(_Ticks), _i64, _i64)
_server_tick = _fn("ticksync_server_tick", _i64, _p, ctypes.POINTER(_Ticks), _i64, ctypes.POINTER(ctypes.c_double))
_input_tick = _fn("ticksync_input_tick", _i64, _p, ctypes.POINTER(_Ticks), _i64)
_render_time = _fn("ticksync_render_time", _i64, _p, ctypes.POINTER(_Ticks), _i64)
_time_scale = _fn("ticksync_time_scale", ctypes.c_double, _p, ctypes.POINTER(_Ticks), _i64, _i64, ctypes.c_double)
_resync = _fn("ticksync_resync", None, _p)
_resume = _fn("ticksync_resume", None, _p)
_path_changed = _fn("ticksync_path_changed", None, _p)
_client_new = _fn("ticksync_client_new", _p, ctypes.POINTER(_ClientOptions), ctypes.c_char_p)
_client_destroy = _fn("ticksync_client_destroy", None, ctypes.POINTER(_p))
_client_run = _fn("ticksync_client_run", ctypes.c_int, _p, ctypes.c_int)
_client_clock = _fn("ticksync_client_clock", _p, _p)
_client_session = _fn("ticksync_client_session", _p, _p)
_client_connects = _fn("ticksync_client_connects", ctypes.c_uint, _p)
_client_start = _fn("ticksync_client_start", ctypes.c_int, _p)
_client_state = _fn("ticksync_client_state", ctypes.c_int, _p)
_client_last_error = _fn("ticksync_client_last_error", ctypes.c_char_p, _p)
_client_refusal = _fn("ticksync_client_refusal", ctypes.c_char_p, _p)
_session_rtt = _fn("ticksync_session_server_rtt", None, _p, ctypes.POINTER(_i64), ctypes.POINTER(_i64),
                   ctypes.POINTER(_i64))
_session_error = _fn("ticksync_session_last_error", ctypes.c_int, _p)


def local_us():
    """The monotonic clock, in microseconds: a local clock for games that have none."""
    return _local()


def _int(name, value):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError("%s must be an int of microseconds, not %s" % (name, type(value).__name__))
    return value


class Ticks:
    """The server's simulation step: tick_us from epoch_us (server time of tick 0)."""

    def __init__(self, tick_us, epoch_us=0, margin=2.0, max_scale=0.05):
        if _int("tick_us", tick_us) <= 0:
            raise ValueError("tick_us must be positive")
        if not 0 < max_scale < 1 or margin < 0:
            raise ValueError("max_scale must be in (0, 1) and margin >= 0")
        self._c = _Ticks()
        _ticks_default(ctypes.byref(self._c), tick_us, _int("epoch_us", epoch_us))
        self._c.margin, self._c.max_scale = float(margin), float(max_scale)


class _Owned:
    """A C object this wrapper owns (_destroy_fn frees it): closed by close(), a with block, or the collector.
    Every method after close raises ValueError, as a closed file does."""

    _c = None
    _owned = True
    _owner = None

    @property
    def _h(self):
        """The C handle; ValueError once this object, or the client a view belongs to, is closed."""
        if not self._c or (self._owner is not None and not self._owner._c):
            raise ValueError("ticksync: I/O on a closed %s" % type(self).__name__)
        return self._c

    def close(self):
        if self._owned and self._c:
            p = _p(self._c)
            type(self)._destroy_fn(ctypes.byref(p))
        self._c = None

    def __del__(self):
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Clock(_Owned):
    """The clock estimator: feed it each exchange's t1..t4, ask it for server time."""

    _destroy_fn = _destroy

    def __init__(self, _view=None, _owner=None):
        self._owner = _owner          # keeps a client alive while its clock is used
        self._c = _view if _view is not None else _new(None)
        self._owned = _view is None
        if not self._c:
            raise MemoryError("ticksync_new")

    def sample(self, t1, t2, t3, t4):
        """One exchange: t1 local send, t2 and t3 from SYNC_REPLY, t4 local arrival. Returns the verdict (0: accepted)."""
        return _sample(self._h, _int("t1", t1), _int("t2", t2), _int("t3", t3), _int("t4", t4))

    def now(self, local=None):
        """Server time at local (default: now); never less than before. 0 before the first sample."""
        return _now(self._h, local_us() if local is None else _int("local", local))

    def error_bound(self, local=None):
        return _bound(self._h, local_us() if local is None else _int("local", local))

    def expected_error(self, local=None):
        return _expected(self._h, local_us() if local is None else _int("local", local))

    def offset(self, local=None):
        return _offset(self._h, local_us() if local is None else _int("local", local))

    @property
    def delay(self):
        return _delay(self._h)

    @property
    def jitter(self):
        return _jitter(self._h)

    @property
    def frequency(self):
        """The local clock's rate minus the server's (+ for fast), e.g. 2e-4 for 200 ppm fast."""
        return _frequency(self._h)

    @property
    def synced(self):
        return bool(_synced(self._h))

    def stats(self):
        s = _Stats()
        _stats(self._h, ctypes.byref(s))
        return {name: getattr(s, name) for name, _ in _Stats._fields_}

    # the timeline
    def server_tick(self, ticks, local=None):
        """(tick, fraction): the tick the server is simulating at local, and how far into it."""
        f = ctypes.c_double()
        tick = _server_tick(self._h, ctypes.byref(ticks._c), local_us() if local is None else local, ctypes.byref(f))
        return tick, f.value

    def input_tick(self, ticks, local=None):
        return _input_tick(self._h, ctypes.byref(ticks._c), local_us() if local is None else local)

    def render_time(self, ticks, local=None):
        return _render_time(self._h, ctypes.byref(ticks._c), local_us() if local is None else local)

    def time_scale(self, ticks, client_tick, client_fraction, local=None):
        return _time_scale(self._h, ctypes.byref(ticks._c), local_us() if local is None else local,
                           _int("client_tick", client_tick), float(client_fraction))

    def resync(self):
        _resync(self._h)

    def resume(self):
        """The game was paused or in the background: counted in stats, then a burst."""
        _resume(self._h)

    def path_changed(self):
        """The network changed (another interface or access point): the next
        reply starts a new path, then a burst. Only for a real change."""
        _path_changed(self._h)


class Client(_Owned):
    """A session with a gate on real sockets (TCP, then UDP once synced), reconnecting by itself."""

    _destroy_fn = _client_destroy

    def __init__(self, server, player_id, token=None, udp=True, unreachable_after=0):
        if not isinstance(server, str) or ":" not in server:
            raise ValueError("server must be 'HOST:PORT', not %r" % (server,))
        if isinstance(player_id, bool) or not isinstance(player_id, int) or not 0 < player_id < 2 ** 64:
            raise ValueError("player_id must be a positive 64-bit int, not %r" % (player_id,))
        if token is not None and not isinstance(token, (bytes, bytearray)):
            raise TypeError("token must be bytes or None")
        if isinstance(unreachable_after, bool) or not isinstance(unreachable_after, int) or unreachable_after < 0:
            raise ValueError("unreachable_after must be an int >= 0 (0: 3), not %r" % (unreachable_after,))
        self._token = bytes(token) if token is not None else None
        o = _ClientOptions(server.encode(), player_id, self._token, len(self._token or b""), bool(udp), None,
                           unreachable_after)
        err = ctypes.create_string_buffer(ERR_MAX)
        self._c = _client_new(ctypes.byref(o), err)
        if not self._c:
            raise TicksyncError(err.value.decode(errors="replace"))

    def run(self, timeout_ms=0):
        """Does the client's work for up to timeout_ms (0: what is ready now, once a frame): replies in,
        SYNCs and ACKs out, reconnects with backoff. Raises SessionRefused once the gate refused the session."""
        if _client_run(self._h, int(timeout_ms)) < 0:
            reason = self.refusal
            code = 0 if reason == "replaced" else _session_error(_client_session(self._h))
            raise SessionRefused(code, reason, self.last_error)

    def start(self):
        """Starts the network thread, which reads and stamps each reply the moment it arrives (for
        platforms whose kernel gives no receive stamp, Windows); run(0) is still called each frame."""
        if _client_start(self._h) < 0:
            raise TicksyncError("cannot start the network thread")

    @property
    def state(self):
        """"connecting" (not synced yet), "synced", "unreachable" (unreachable_after attempts in a row
        failed; still retrying) or "refused" (see refusal)."""
        return CLIENT_STATES[_client_state(self._h)]

    @property
    def last_error(self):
        """What went wrong last, as a sentence ("" when nothing has)."""
        return _client_last_error(self._h).decode(errors="replace")

    @property
    def refusal(self):
        """Why the gate refused the session ("" while it has not): "replaced", "UNAUTHORIZED", ..."""
        return _client_refusal(self._h).decode(errors="replace")

    @property
    def clock(self):
        return Clock(_view=_client_clock(self._h), _owner=self)

    def now(self):
        return self.clock.now()

    @property
    def synced(self):
        return self.clock.synced

    def server_rtt(self):
        """The server's measured round trip (µs) of the last SYNC_RESULT, or None before one (or for an invalid one)."""
        rtt, srtt, rttvar = _i64(-1), _i64(), _i64()
        _session_rtt(_client_session(self._h), ctypes.byref(rtt), ctypes.byref(srtt), ctypes.byref(rttvar))
        return rtt.value if rtt.value >= 0 else None

    @property
    def connects(self):
        return _client_connects(self._h)
