// demo.mjs - the demo page: the server's clock ticking, its error bound,
// the round trip and the offset as a live chart. Query: ws (the gate's
// WebSocket address; ws://<this host>:7702/ by default), player (an id;
// random by default). window.ticksyncDemo holds what the browser test reads.
import { connect } from '../ticksync.mjs';

const params = new URLSearchParams(location.search);
const url = params.get('ws') || `ws://${location.hostname || '127.0.0.1'}:7702/`;
const player = Number(params.get('player')) || 1 + Math.floor(Math.random() * 1e9);
const $ = (id) => document.getElementById(id);
const ms = (v, digits = 3) => (Number.isFinite(v) ? `${v.toFixed(digits)} ms` : '–');

const demo = {
  client: null, player, url,
  lastNow: 0, backstep: 0,     // the most now() ever went back (ms, <= 0; 0: never)
  hidden: 0, resumes: 0,       // times the tab was hidden, and came back
  points: [],                  // { t, offset, bound, rtt } once a second
};
window.ticksyncDemo = demo;

function pad(n, w = 2) { return String(n).padStart(w, '0'); }

function clockText(serverMs) {
  const d = new Date(Math.floor(serverMs));
  return `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)}`;
}

// Every frame: read the clock, check it never goes back, show it.
function frame() {
  const c = demo.client;
  const now = c.now();
  if (demo.lastNow && now - demo.lastNow < demo.backstep)
    demo.backstep = now - demo.lastNow;
  demo.lastNow = Math.max(demo.lastNow, now);
  const el = $('clock');
  if (now > 0) {
    el.textContent = clockText(now) + ' UTC';
    el.dataset.serverMs = String(now);
    el.dataset.shownAt = String(performance.now());
  }
  $('status').textContent = `player ${player} on ${url}: ${c.state}${c.synced ? ', synced' : ''}`
    + (c.refused ? `, refused (${c.refused})` : '') + (c.connects > 1 ? `, ${c.connects} connections` : '');
  $('bound').textContent = '± ' + ms(c.errorBound());
  $('expected').textContent = '± ' + ms(c.expectedError());
  $('rtt').textContent = ms(c.rtt());
  const s = c.serverRtt();
  $('srtt').textContent = s ? `${ms(s.srtt)} (± ${ms(s.rttvar)})` : '–';
  $('offset').textContent = ms(c.offset());
  const st = c.stats();
  $('samples').textContent = `${st.accepted} / ${st.samples}`;
  const t = c.serverTick();
  $('tick').textContent = `${t.tick} + ${t.fraction.toFixed(2)}`;
  $('resumes').textContent = String(st.resumes);
  requestAnimationFrame(frame);
}

function sample() {
  const c = demo.client;
  if (!c.synced)
    return;
  demo.points.push({ t: performance.now() / 1000, offset: c.offset(), bound: c.errorBound(), rtt: c.rtt() });
  if (demo.points.length > 120)
    demo.points.shift();
  draw();
}

function draw() {
  const cv = $('chart'), g = cv.getContext('2d'), W = cv.width, H = cv.height, P = demo.points;
  g.clearRect(0, 0, W, H);
  if (P.length < 2)
    return;
  const base = P[0].offset;
  const t0 = P[P.length - 1].t - 120;
  let span = 1;
  for (const p of P)
    span = Math.max(span, Math.abs(p.offset - base) + p.bound, p.rtt);
  const x = (t) => ((t - t0) / 120) * W;
  const y = (v) => H / 2 - (v / span) * (H / 2 - 10);
  g.strokeStyle = '#eee';
  g.beginPath(); g.moveTo(0, H / 2); g.lineTo(W, H / 2); g.stroke();
  g.fillStyle = '#aec7e8';
  g.beginPath();
  P.forEach((p, i) => (i ? g.lineTo : g.moveTo).call(g, x(p.t), y(p.offset - base + p.bound)));
  for (let i = P.length - 1; i >= 0; i--)
    g.lineTo(x(P[i].t), y(P[i].offset - base - P[i].bound));
  g.fill();
  const line = (color, f) => {
    g.strokeStyle = color; g.lineWidth = 2; g.beginPath();
    P.forEach((p, i) => (i ? g.lineTo : g.moveTo).call(g, x(p.t), y(f(p))));
    g.stroke();
  };
  line('#1f77b4', (p) => p.offset - base);
  line('#d62728', (p) => p.rtt);
  g.fillStyle = '#666';
  g.fillText(`±${span.toFixed(2)} ms`, 6, 12);
}

document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'hidden')
    demo.hidden++;
  else
    demo.resumes++;
});
document.addEventListener('resume', () => { demo.resumes++; });

try {
  demo.client = await connect(url, { playerId: player, ticks: { tickMs: 1000 / 60 } });
  requestAnimationFrame(frame);
  setInterval(sample, 1000);
} catch (e) {
  $('status').textContent = `cannot start: ${e}`;
  demo.error = String(e);
}
