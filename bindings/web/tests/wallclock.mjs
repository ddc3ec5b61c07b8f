// bindings/web/tests/wallclock.mjs - the tests' reference for the system
// clock, in Node.js (test_node.mjs imports it) and in the page (test_browser.py
// puts this text before the script it runs there).
//
// timeOrigin + performance.now() reads the system clock at µs grain, but
// timeOrigin is fixed once, at start, from a reading of the system clock
// that a busy host can leave off by a constant of the run (10-600 us seen in
// Chromium). Date.now() reads the system clock each time, at ms grain: where
// it turns to the next ms the system's time is that ms. wall()'s offset from
// it, averaged over up to 200 turns in 500 ms, is returned, to be taken off.
export function systemClockBias(wall) {
  let bias = 0, turns = 0;
  for (let last = Date.now(), end = performance.now() + 500; turns < 200 && performance.now() < end;) {
    const d = Date.now();
    if (d !== last) {
      const w = wall();
      if (d === last + 1) { bias += w - d; turns++; }
      last = d;
    }
  }
  return turns ? bias / turns : 0;
}
