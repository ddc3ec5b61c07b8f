// ticksync.d.ts - the types of ticksync.mjs.

/** How to load the WebAssembly module. */
export interface LoadOptions {
  /** Where a file the module needs is ('ticksync_wasm.wasm'); beside ticksync.mjs by default. */
  locateFile?: (name: string) => string;
  /** The module's bytes, for hosts that cannot fetch it (Node.js). */
  wasmBinary?: ArrayBuffer | Uint8Array;
}

/** The server's simulation clock, for the timeline. */
export interface TickOptions {
  /** The server's tick, ms (16.667 for 60 Hz). */
  tickMs: number;
  /** Server time of tick 0, ms since the Unix epoch (0). */
  epochMs?: number;
  /** Safety margin in units of the round trip's jitter (2). */
  margin?: number;
  /** The game's simulation runs at 1 ± maxScale at most (0.05). */
  maxScale?: number;
}

export interface ConnectOptions extends LoadOptions {
  playerId: number | bigint;
  /** The login token, for a gate with a secret; none in open mode. */
  token?: Uint8Array | number[];
  ticks?: TickOptions;
  /** A WebSocket class other than the global one. */
  WebSocket?: typeof WebSocket;
  /** Failed connection attempts in a row before status says 'unreachable' (3). */
  unreachableAfter?: number;
}

export interface ServerRtt {
  /** The server's last measurement of this player's round trip, ms. */
  rtt: number;
  /** Its RFC 6298 smoothed value and variation, ms. */
  srtt: number;
  rttvar: number;
}

export interface ClockStats {
  samples: number;
  accepted: number;
  rejectedRtt: number;
  rejectedDev: number;
  rejectedBad: number;
  steps: number;
  pathResets: number;
  serverSteps: number;
  resumes: number;
}

export type SessionState = 'new' | 'welcomed' | 'closed';
export type ClientStatus = 'connecting' | 'synced' | 'unreachable' | 'refused';

export declare class TicksyncClient {
  /** Connections made (1 at first, more after reconnects). */
  readonly connects: number;
  /** Set when the gate refused the session for good: 'replaced' (another login of the player took over),
   * 'UNAUTHORIZED' (a wrong or expired token), 'UNSUPPORTED_VERSION', 'NOT_AUTHENTICATED'. */
  readonly refused?: string;
  /** Connection attempts in a row that ended before WELCOME. */
  readonly failures: number;
  /** Failed attempts in a row before status says 'unreachable' (options.unreachableAfter, 3). */
  readonly unreachableAfter: number;
  /** What went wrong last, as a sentence ('' when nothing has). */
  readonly lastErrorText: string;
  /** 'connecting' (not synced yet), 'synced' (stays so across a reconnect), 'unreachable' (still retrying), 'refused'. */
  readonly status: ClientStatus;
  /** Called after every message from the gate. */
  onchange: ((client: TicksyncClient) => void) | null;
  readonly state: SessionState;
  /** True once enough exchanges agree for now() to be trusted. */
  readonly synced: boolean;
  /** Server time, ms since the Unix epoch (µs precision); 0 before the first exchange. Never decreases. */
  now(): number;
  /** ± ms that now() surely holds, two grains of performance.now() included; Infinity before the first exchange. */
  errorBound(): number;
  /** ms that now() holds about 95% of the time. */
  expectedError(): number;
  /** Server time minus local time, ms. */
  offset(): number;
  /** The round trip (ms) of the sample the clock follows. */
  rtt(): number;
  /** Local clock rate minus the server's (2e-4: 200 ppm fast). */
  frequency(): number;
  /** How long ago (ms) the server stamped serverTimeMs. */
  messageAge(serverTimeMs: number): number;
  /** The server's own measurement of this player's round trip; null before the first. */
  serverRtt(): ServerRtt | null;
  stats(): ClockStats;
  /** The last ERROR's name, '' for none. */
  lastError(): string;
  /** A burst of exchanges now. */
  resync(): void;
  /** The game was paused or in the background: counted in stats().resumes, and a burst follows. A tab shown again, or a page resumed from frozen, does this itself. */
  resume(): void;
  /** The network changed (another interface or access point): the next reply starts a new path, and a burst follows. Only for a real change: a needless one costs the seconds a new path takes to settle. */
  pathChanged(): void;
  setTicks(tickMs: number, epochMs?: number, margin?: number, maxScale?: number): void;
  /** The tick the server simulates now, and how far into it (0..1). */
  serverTick(): { tick: number; fraction: number };
  /** The tick to stamp an input made now with. Never decreases. */
  inputTick(): number;
  /** Server time (ms) to render other entities at. Never decreases. */
  renderTime(): number;
  /** The round trip's jitter, ms. */
  jitter(): number;
  /** The speed (1 ± maxScale) to run the game's own simulation at. */
  timeScale(clientTick: number, clientFraction?: number): number;
  /** Closes for good and frees the module's memory. */
  close(): void;
}

/** Loads the WebAssembly module (once). */
export declare function load(options?: LoadOptions): Promise<unknown>;
/** performance.now() in integer microseconds. */
export declare function localUs(): bigint;
/** The grain (ms) of performance.now() as measured once: each local stamp and read may be off by it. */
export declare function clockGrainMs(): number;
/** Loads the module and opens a session with the gate at url ('ws://host:port/'). */
export declare function connect(url: string, options: ConnectOptions): Promise<TicksyncClient>;
