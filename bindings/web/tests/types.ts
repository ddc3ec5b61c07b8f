// tests/types.ts - what a TypeScript game writes against the package; tsc
// --strict must accept it (run-tests.sh), so the types say what the module does.
import { connect, load, localUs, TicksyncClient, ServerRtt, ClockStats, ClientStatus } from '../ticksync';

async function game(): Promise<void> {
  await load({ locateFile: (name: string) => `/assets/${name}` });
  const client: TicksyncClient = await connect('ws://127.0.0.1:7702/', {
    playerId: 42n, token: new Uint8Array(16), ticks: { tickMs: 1000 / 60, epochMs: 0, margin: 2 }, unreachableAfter: 5,
  });
  const status: ClientStatus = client.status;
  const why: string = client.refused ?? client.lastErrorText;
  console.log(status, why, client.failures);
  const now: number = client.now();
  const bound: number = client.errorBound();
  const rtt: ServerRtt | null = client.serverRtt();
  const srtt: number | undefined = rtt?.srtt;
  const stats: ClockStats = client.stats();
  const tick: { tick: number; fraction: number } = client.serverTick();
  const input: number = client.inputTick();
  const render: number = client.renderTime();
  const scale: number = client.timeScale(tick.tick, tick.fraction);
  const local: bigint = localUs();
  client.onchange = (c: TicksyncClient) => { void c.synced; };
  client.setTicks(50, 0);
  console.log(now, bound, srtt, stats.resumes, input, render, scale, local, client.state, client.lastError());
  client.close();
}
void game;
