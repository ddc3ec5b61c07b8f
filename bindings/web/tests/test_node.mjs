// tests/test_node.mjs - the ES module under Node.js against the real gate's
// WebSocket edge (bindings/stack.sh's TICKSYNC_WS_GATE): it syncs to the
// host's clock within 5 ms, never runs back, gets the server's own round
// trip, answers the timeline, puts the player's row in the admin API, and
// takes a refusal (no token, a gate with a secret) as final, and tries a
// gate it cannot reach again, with backoff.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import { createRequire } from 'node:module';

import { systemClockBias } from './wallclock.mjs';

const pkg = process.env.TEST_PKG;   // the built package, as npm would install it
const { connect, clockGrainMs } = await import(`${pkg}/ticksync.mjs`);
const wasmBinary = fs.readFileSync(`${pkg}/ticksync_wasm.wasm`);
// Node.js has a WebSocket from 22 (20 behind a flag); else Debian's node-ws.
const WebSocket = globalThis.WebSocket || createRequire(import.meta.url)('/usr/share/nodejs/ws');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Waits for f(); c, when given, is the client whose state a timeout reports.
async function until(what, f, ms = 5000, c = null) {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(20))
    if (await f())
      return;
  const seen = c ? ` (state ${c.state}, ${c.connects} connects, ${JSON.stringify(c.stats())})` : '';
  assert.fail(`timed out waiting for ${what}${seen}`);
}

async function adminGet(path) {
  const r = await fetch(`http://${process.env.TICKSYNC_ADMIN}${path}`);
  return { status: r.status, body: r.status === 200 ? await r.json() : null };
}

let failed = 0;
async function test(name, f) {
  try {
    await f();
    console.log(`ok   ${name}`);
  } catch (e) {
    failed++;
    console.log(`FAIL ${name}\n${e.stack || e}`);
  }
}

await test('syncs to the host clock within 5 ms, and never runs back', async () => {
  const c = await connect(`ws://${process.env.TICKSYNC_WS_GATE}/`, { playerId: 4101, wasmBinary, WebSocket });
  await until('synced', () => c.synced, 5000, c);
  assert.equal(c.state, 'welcomed');
  let best = null;
  for (let i = 0; i < 5; i++) {   // between two reads of the host's clock; the tightest try
    const before = Date.now(), v = c.now(), after = Date.now();
    if (!best || after - before < best.after - best.before)
      best = { before, v, after };
  }
  assert.ok(best.v >= best.before - 5 && best.v <= best.after + 5,
            `now() ${best.v} vs host [${best.before}, ${best.after}]`);
  assert.ok(c.errorBound() < 5, `error bound ${c.errorBound()} ms`);
  // Node's performance.now() is not coarsened: its grain is the C side's µs
  assert.ok(clockGrainMs() >= 0.001 && clockGrainMs() < 0.05, `clock grain ${clockGrainMs()} ms`);
  let last = 0;
  for (const end = Date.now() + 1000; Date.now() < end;) {
    const v = c.now();
    assert.ok(v >= last, `now() went back ${last - v} ms`);
    last = v;
    await sleep(0);
  }
  await until('a SYNC_RESULT', () => c.serverRtt() !== null);
  const s = c.serverRtt();
  assert.ok(s.rtt > 0 && s.rtt < 50 && s.srtt > 0, JSON.stringify(s));
  assert.ok(c.stats().accepted >= 4, JSON.stringify(c.stats()));
  await until('the row in the admin API', async () => {
    const r = await adminGet('/v1/players/4101');
    return r.status === 200 && r.body.samples >= 4 && r.body.online === true;
  });
  c.close();
});

await test('answers the timeline', async () => {
  const c = await connect(`ws://${process.env.TICKSYNC_WS_GATE}/`, {
    playerId: 4102, wasmBinary, WebSocket, ticks: { tickMs: 50, epochMs: 0 } });
  await until('synced', () => c.synced, 5000, c);
  const before = c.now(), t = c.serverTick(), after = c.now();   // a tick may begin between two reads
  assert.ok(t.tick >= Math.floor(before / 50) && t.tick <= Math.floor(after / 50),
            `tick ${t.tick} = floor(now / 50 ms), now in [${before}, ${after}]`);
  assert.ok(t.fraction >= 0 && t.fraction < 1);
  const input = c.inputTick();
  assert.ok(input > t.tick && input <= t.tick + 3, `input ${input} for server tick ${t.tick}`);
  const render = c.renderTime();
  assert.ok(render < c.now() && render > c.now() - 500, `render ${c.now() - render} ms behind`);
  const scale = c.timeScale(input, 0);
  assert.ok(scale >= 0.95 && scale <= 1.05, `scale ${scale}`);
  assert.ok(c.jitter() >= 0);
  const resumes = c.stats().samples;
  c.resync();
  await until('a burst after resync', () => c.stats().samples >= resumes + 3, 2000);
  const resets = c.stats().pathResets;
  c.pathChanged();   // the platform says the network changed: the next reply starts a new path
  await until('a new path at the next reply', () => c.stats().pathResets === resets + 1, 2000);
  c.close();
});

await test('a refused session stays closed and does not come back', async () => {
  const c = await connect(`ws://${process.env.TICKSYNC_SECURE_WS_GATE}/`, { playerId: 4103, wasmBinary, WebSocket });
  await until('the refusal', () => c.refused !== undefined, 5000, c);
  assert.equal(c.refused, 'UNAUTHORIZED');
  assert.equal(c.status, 'refused');
  assert.equal(c.state, 'closed');
  assert.equal(c.now(), 0);
  await sleep(500);
  assert.equal(c.connects, 1, 'no reconnect after a refusal');
  c.close();
});

await test('a gate that cannot be reached is tried again, with backoff', async () => {
  const server = net.createServer();   // a port nothing listens on: bound, then let go
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const port = server.address().port;
  await new Promise((r) => server.close(r));
  const c = await connect(`ws://127.0.0.1:${port}/`, { playerId: 4104, wasmBinary, WebSocket });
  await until('three tries', () => c.connects >= 3, 3000, c);   // after 100 ms, then 200 ms
  assert.equal(c.synced, false);
  c.close();
  const tries = c.connects;
  await sleep(500);
  assert.equal(c.connects, tries, 'tried again after close()');
});

await test('read once a frame at 60 Hz, server time is within 0.5 ms of the host clock (p99)', async () => {
  const c = await connect(`ws://${process.env.TICKSYNC_WS_GATE}/`, { playerId: 4105, wasmBinary, WebSocket });
  await until('synced', () => c.status === 'synced', 5000, c);
  await sleep(1000);
  // the reference: the system clock at µs grain, timeOrigin's own offset taken off (wallclock.mjs)
  const wall = () => performance.timeOrigin + performance.now();
  const bias = systemClockBias(wall);
  const hostMs = () => wall() - bias;
  const errors = [];
  let last = 0, backwards = 0, uncovered = 0;
  for (let frame = 0; frame < 6 * 60; frame++) {   // a game's loop: one read a frame, the rest event-driven
    const h0 = hostMs(), now = c.now(), h1 = hostMs();
    const off = Math.max(0, h0 - now, now - h1);
    errors.push(off);
    backwards += now < last;
    uncovered += off > c.errorBound();
    last = now;
    await sleep(1000 / 60);
  }
  errors.sort((a, b) => a - b);
  const p99 = errors[Math.floor(errors.length * 0.99)];
  console.log(`     60 Hz reads: p50 ${(errors[errors.length >> 1] * 1000).toFixed(0)} us, p99 ${(p99 * 1000).toFixed(0)} us; `
              + `timeOrigin ${(bias * 1000).toFixed(0)} us off the system's clock`);
  // what the clock saw, should it fail: a host too slow to answer (sanitizers) shows in its steps and paths
  const seen = `p99 ${p99} ms; timeOrigin off by ${bias} ms; bound ${c.errorBound()} ms; jitter ${c.jitter()} ms; ${JSON.stringify(c.stats())}`;
  assert.ok(p99 <= 0.5, seen);
  assert.equal(backwards, 0, seen);
  assert.equal(uncovered, 0, seen);
  c.close();
  assert.throws(() => c.now(), /closed/, 'a closed client throws');
  assert.throws(() => c.serverTick(), /closed/);
});

await test('a second login refuses the first as replaced, which does not come back', async () => {
  const first = await connect(`ws://${process.env.TICKSYNC_WS_GATE}/`, { playerId: 4106, wasmBinary, WebSocket });
  await until('synced', () => first.status === 'synced', 5000, first);
  const second = await connect(`ws://${process.env.TICKSYNC_WS_GATE}/`, { playerId: 4106, wasmBinary, WebSocket });
  await until('the replacement', () => first.refused !== undefined, 5000, first);
  assert.equal(first.refused, 'replaced');
  assert.equal(first.status, 'refused');
  await sleep(500);
  assert.equal(first.connects, 1, 'no reconnect to fight the new login');
  first.close();
  second.close();
});

await test('a gate that cannot be reached is reported unreachable', async () => {
  const server = net.createServer();
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const port = server.address().port;
  await new Promise((r) => server.close(r));
  const c = await connect(`ws://127.0.0.1:${port}/`, { playerId: 4107, wasmBinary, WebSocket, unreachableAfter: 2 });
  assert.equal(c.status, 'connecting');
  await until('unreachable', () => c.status === 'unreachable', 3000, c);
  assert.match(c.lastErrorText, /cannot connect/);
  c.close();
});

process.exit(failed ? 1 : 0);
