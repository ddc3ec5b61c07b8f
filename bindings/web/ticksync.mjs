// ticksync.mjs - libticksync in the browser: the C estimator, session and
// timeline compiled to WebAssembly (ticksync_wasm.wasm), on a WebSocket to
// the gate's --ws-listen. Each binary frame carries one protocol message.
//
//   import { connect } from './ticksync.mjs';
//   const ts = await connect('ws://127.0.0.1:7702/', { playerId: 42 });
//   ts.now();          // server time, ms since the Unix epoch (µs precision)
//   ts.errorBound();   // ± ms that now() is surely within
//
// The local clock is performance.now(). A tab coming back from hidden, or
// a page resumed from frozen, counts as a resume: a burst of exchanges
// follows, and now() never steps back. A lost connection is made again
// (100 ms doubling to 2 s); the clock estimate carries on.
import createModule from './ticksync_wasm.mjs';

const MSG_MAX = 4096;            // a protocol message's largest body
const BACKOFF_MIN_MS = 100;
const BACKOFF_MAX_MS = 2000;
const SESSION_STATES = ['new', 'welcomed', 'closed'];
const ERRORS = ['', 'BAD_FRAME', 'BAD_MESSAGE', 'UNSUPPORTED_VERSION', 'UNAUTHORIZED', 'NOT_AUTHENTICATED',
                'RATE_LIMITED', 'UNAVAILABLE', 'TOO_LARGE'];

let modulePromise = null;

/**
 * Loads the WebAssembly module once (later calls share it). It is fetched
 * from beside this file, or options.locateFile(name) names where;
 * options.wasmBinary hands the bytes in (Node.js, which cannot fetch a
 * file: URL).
 */
export function load(options = {}) {
  if (!modulePromise) {
    const init = {};
    if (options.locateFile)
      init.locateFile = options.locateFile;
    if (options.wasmBinary)
      init.wasmBinary = options.wasmBinary;
    modulePromise = createModule(init);
  }
  return modulePromise;
}

/** performance.now() in integer microseconds, as the C side takes it. */
export function localUs() {
  return BigInt(Math.round(performance.now() * 1000));
}

const usToMs = (us) => Number(us) / 1000;

let grainMs;
/**
 * The grain (ms) of performance.now(), the least step it is seen to take
 * over a few ms of reads: browsers coarsen it (Chromium to 100 µs, with
 * jitter, in a page that is not cross-origin isolated; Firefox to as much
 * as 1 ms), and each stamp and each read of the local clock may then be
 * off by a grain either way. Measured once, at the first call; at least
 * 1 µs, the C side's grain.
 */
export function clockGrainMs() {
  if (grainMs === undefined) {
    let least = Infinity, steps = 0, last = performance.now();
    const end = last + 20;
    for (let t = last; steps < 8 && t < end; t = performance.now()) {
      if (t > last) {
        least = Math.min(least, t - last);
        steps++;
        last = t;
      }
    }
    grainMs = Math.max(Number.isFinite(least) ? least : 20, 0.001);
  }
  return grainMs;
}

/** One player's session with a gate, and its clock. */
export class TicksyncClient {
  constructor(mod, url, options) {
    this._m = mod;
    this._url = url;
    this._ws = null;
    this._WebSocket = options.WebSocket || globalThis.WebSocket;
    this._closed = false;
    this._backoff = BACKOFF_MIN_MS;
    this._timer = null;
    this.connects = 0;
    this.failures = 0;             // connection attempts in a row that ended before WELCOME
    this.unreachableAfter = options.unreachableAfter || 3;
    this.lastErrorText = '';       // what went wrong last, as a sentence
    this.refused = undefined;      // why the gate refused: 'replaced', 'UNAUTHORIZED', ... (then no reconnect)
    this.onchange = null;          // called after every message from the gate
    const token = options.token ? Uint8Array.from(options.token) : null;
    const tok = token ? mod._malloc(Math.max(token.length, 1)) : 0;
    if (token)
      mod.HEAPU8.set(token, tok);
    this._session = mod._ticksync_session_new(BigInt(options.playerId), tok, token ? token.length : 0, 0);
    if (tok)
      mod._free(tok);
    if (!this._session)
      throw new Error('ticksync: bad player id or token');
    this._clock = mod._ticksync_session_clock(this._session);
    this._in = mod._malloc(MSG_MAX);
    this._out = mod._malloc(MSG_MAX);
    this._scratch = mod._malloc(128);   // out-parameters, the stats and the ticks
    this._ticks = mod._malloc(32);      // ticksync_ticks_t
    const t = options.ticks || { tickMs: 1000 / 60, epochMs: 0 };
    this.setTicks(t.tickMs, t.epochMs, t.margin, t.maxScale);
    this._onVisible = () => { if (document.visibilityState === 'visible') this.resume(); };
    this._onResume = () => this.resume();
    if (typeof document !== 'undefined') {
      document.addEventListener('visibilitychange', this._onVisible);
      document.addEventListener('resume', this._onResume);   // the page was frozen
    }
    this._open();
  }

  // ---- the connection ------------------------------------------------------

  _open() {
    if (this._closed)
      return;
    const m = this._m;
    m._ticksync_session_reset(this._session);
    const ws = new this._WebSocket(this._url);
    ws.binaryType = 'arraybuffer';
    this._ws = ws;
    this.connects++;
    this._welcomed = false;
    ws.onopen = () => {
      this._send(m._ticksync_session_hello(this._session, this._out, MSG_MAX));
      this._pump();
    };
    ws.onmessage = (ev) => this._receive(new Uint8Array(ev.data));
    ws.onclose = () => this._lost(ws);
    // A browser fires close after error; Node.js 20's WebSocket does not
    // when the connection fails to open, so an error counts as the loss.
    ws.onerror = () => this._lost(ws);
  }

  _lost(ws) {
    if (ws !== this._ws)
      return;   // already counted: close after error
    this._ws = null;
    if (!this._welcomed) {
      this.failures++;
      if (!this.refused)
        this.lastErrorText = `cannot connect to ${this._url}`;
    } else if (!this.refused) {
      this.lastErrorText = `the connection to ${this._url} was lost`;
    }
    if (ws.readyState === 1)
      ws.close();
    clearTimeout(this._timer);
    if (this._closed || this.refused)
      return;
    this._timer = setTimeout(() => this._open(), this._backoff);
    this._backoff = Math.min(this._backoff * 2, BACKOFF_MAX_MS);
  }

  _send(len) {
    if (len > 0 && this._ws && this._ws.readyState === 1)
      this._ws.send(this._m.HEAPU8.slice(this._out, this._out + len));
  }

  _receive(bytes) {
    if (this._closed)
      return;   // a message the socket had read before close()
    const m = this._m;
    const local = localUs();   // the arrival, before anything else
    if (bytes.length > MSG_MAX)
      return;
    m.HEAPU8.set(bytes, this._in);
    const rc = m._ticksync_session_receive_at(this._session, this._in, bytes.length, local, localUs(), this._out,
                                              MSG_MAX);
    if (rc > 0)
      this._send(rc);
    if (this.state === 'welcomed' && !this._welcomed) {
      this._welcomed = true;
      this._backoff = BACKOFF_MIN_MS;
      this.failures = 0;
    }
    if (rc < 0 && this.state === 'closed' && this._ws) {
      const err = m._ticksync_session_last_error(this._session);
      if (m._ticksync_session_replaced(this._session))   // another login took the player: do not fight it
        this.refused = 'replaced';
      else if (err === 3 || err === 4 || err === 5)       // a refusal a reconnect would only repeat
        this.refused = ERRORS[err];
      this.lastErrorText = this.refused ? `the gate refused the session: ${this.refused}`
                                        : `the gate sent ERROR ${ERRORS[err] || err}`;
      this._ws.close();
    }
    this._pump();
    if (this.onchange)
      this.onchange(this);
  }

  // Sends a SYNC when one is due, and sleeps until the next.
  _pump() {
    clearTimeout(this._timer);
    if (!this._ws || this._ws.readyState !== 1)
      return;
    const m = this._m;
    const local = localUs();
    this._send(m._ticksync_session_sync(this._session, local, this._out, MSG_MAX));
    const next = m._ticksync_next_sync(this._clock);
    const waitMs = Math.max(1, usToMs(next - localUs()));
    this._timer = setTimeout(() => this._pump(), Math.min(waitMs, 1000));
  }

  /** Closes the connection for good and frees the module's memory. */
  close() {
    if (this._closed)
      return;
    this._closed = true;
    clearTimeout(this._timer);
    if (this._ws)
      this._ws.close(1000);
    if (typeof document !== 'undefined') {
      document.removeEventListener('visibilitychange', this._onVisible);
      document.removeEventListener('resume', this._onResume);
    }
    const m = this._m;
    const p = m._malloc(4);
    new Uint32Array(m.HEAPU8.buffer, p, 1)[0] = this._session;
    m._ticksync_session_destroy(p);
    m._free(p);
    for (const q of [this._in, this._out, this._scratch, this._ticks])
      m._free(q);
    this._session = 0;
    this._clock = 0;
  }

  /** 'connecting' (not synced yet), 'synced' (it stays so while a lost connection is made again),
   * 'unreachable' (unreachableAfter attempts in a row failed; still retrying) or 'refused' (see refused). */
  get status() {
    if (this.refused)
      return 'refused';
    if (this.failures >= this.unreachableAfter)
      return 'unreachable';
    return this.synced ? 'synced' : 'connecting';
  }

  // The handles, or an Error once close() has freed them: nothing reads freed memory.
  get _s() {
    if (!this._session)
      throw new Error('ticksync: the client is closed');
    return this._session;
  }
  get _c() {
    if (!this._clock)
      throw new Error('ticksync: the client is closed');
    return this._clock;
  }

  // ---- the clock -------------------------------------------------------------

  /** 'new' (HELLO sent), 'welcomed' or 'closed'. */
  get state() { return SESSION_STATES[this._m._ticksync_session_state(this._s)]; }
  /** True once enough exchanges agree for now() to be trusted. */
  get synced() { return this._m._ticksync_synced(this._c) !== 0; }
  /** Server time now, ms since the Unix epoch; 0 before the first exchange. Never decreases. */
  now() { return usToMs(this._m._ticksync_now(this._c, localUs())); }
  /**
   * ± ms that now() surely holds; Infinity before the first exchange. The
   * C bound, plus two grains of the page's clock (clockGrainMs): one for
   * the sample's own stamps, one for the read of now().
   */
  errorBound() {
    const b = this._m._ticksync_error_bound(this._c, localUs());
    return b >= 0x7fffffffffffffffn ? Infinity : usToMs(b) + 2 * clockGrainMs();
  }
  /** ms that now() holds about 95% of the time. */
  expectedError() {
    const b = this._m._ticksync_expected_error(this._c, localUs());
    return b >= 0x7fffffffffffffffn ? Infinity : usToMs(b);
  }
  /** Server time minus local time (ms) as now() uses it. */
  offset() { return usToMs(this._m._ticksync_offset(this._c, localUs())); }
  /** The round trip (ms) of the sample the clock follows. */
  rtt() { return usToMs(this._m._ticksync_delay(this._c)); }
  /** Local clock rate minus the server's (2e-4: 200 ppm fast). */
  frequency() { return this._m._ticksync_frequency(this._c); }
  /** How long ago (ms) the server stamped serverTimeMs. */
  messageAge(serverTimeMs) {
    return usToMs(this._m._ticksync_message_age(this._c, BigInt(Math.round(serverTimeMs * 1000)), localUs()));
  }
  /** The server's own measurement of this player's round trip (ms), from the last SYNC_RESULT; null before one. */
  serverRtt() {
    const m = this._m, p = this._scratch;
    m._ticksync_session_server_rtt(this._s, p, p + 8, p + 16);
    const v = new BigInt64Array(m.HEAPU8.buffer, p, 3);
    return v[0] < 0n ? null : { rtt: usToMs(v[0]), srtt: usToMs(v[1]), rttvar: usToMs(v[2]) };
  }
  /** The estimator's counters (samples, accepted, steps, resumes, ...). */
  stats() {
    const m = this._m, p = this._scratch;
    m._ticksync_stats(this._c, p);
    const v = new BigUint64Array(m.HEAPU8.buffer, p, 9);
    const names = ['samples', 'accepted', 'rejectedRtt', 'rejectedDev', 'rejectedBad', 'steps', 'pathResets',
                   'serverSteps', 'resumes'];
    const out = {};
    names.forEach((n, i) => { out[n] = Number(v[i]); });
    return out;
  }
  /** The last ERROR's name ('' for none). */
  lastError() { return ERRORS[this._m._ticksync_session_last_error(this._s)] || ''; }
  /** A burst of exchanges now (after a level load, say). */
  resync() { this._m._ticksync_resync(this._c); this._pump(); }
  /** The game was paused or in the background: counted in stats().resumes, and a burst follows (a tab shown again does this itself). */
  resume() { this._m._ticksync_resume(this._c); this._pump(); }
  /** The network changed (another interface or access point): the next reply starts a new path, and a burst follows. Only for a real change: a needless one costs the seconds a new path takes to settle. */
  pathChanged() { this._m._ticksync_path_changed(this._c); this._pump(); }

  // ---- the timeline ----------------------------------------------------------

  /** The server's tick length and tick 0 (ms); margin in jitters (2), maxScale (0.05). */
  setTicks(tickMs, epochMs = 0, margin, maxScale) {
    const m = this._m;
    m._ticksync_ticks_default(this._ticks, BigInt(Math.round(tickMs * 1000)), BigInt(Math.round(epochMs * 1000)));
    const f = new Float64Array(m.HEAPU8.buffer, this._ticks + 16, 2);
    if (margin !== undefined)
      f[0] = margin;
    if (maxScale !== undefined)
      f[1] = maxScale;
  }
  /** The tick the server simulates now, and how far into it (0..1). */
  serverTick() {
    const m = this._m;
    const tick = m._ticksync_server_tick(this._c, this._ticks, localUs(), this._scratch);
    return { tick: Number(tick), fraction: new Float64Array(m.HEAPU8.buffer, this._scratch, 1)[0] };
  }
  /** The tick to stamp an input made now with, so it reaches the server in time. Never decreases. */
  inputTick() { return Number(this._m._ticksync_input_tick(this._c, this._ticks, localUs())); }
  /** Server time (ms) to render other entities at. Never decreases. */
  renderTime() { return usToMs(this._m._ticksync_render_time(this._c, this._ticks, localUs())); }
  /** The round trip's jitter (ms). */
  jitter() { return usToMs(this._m._ticksync_jitter(this._c)); }
  /** The speed (1 ± maxScale) to run the game's own simulation at. */
  timeScale(clientTick, clientFraction = 0) {
    return this._m._ticksync_time_scale(this._c, this._ticks, localUs(), BigInt(clientTick), clientFraction);
  }
}

/**
 * Loads the module and connects. url: the gate's WebSocket address
 * ('ws://host:port/'); options.playerId (number or bigint), options.token
 * (bytes, for a gate with a secret), options.ticks ({ tickMs, epochMs }).
 */
export async function connect(url, options) {
  const mod = await load(options);
  return new TicksyncClient(mod, url, options);
}
