#!/usr/bin/env python3
"""tests/test_browser.py - the demo page in Debian's headless Chromium,
driven by Selenium and chromedriver, against the real gate and scene
(bindings/stack.sh) and a static server for the page (serve.py):

- the page syncs, and the server time it shows, and its now(), agree with
  this host's real clock within 5 ms (loopback; a WebDriver call takes ms);
- read once a frame from requestAnimationFrame, as a game reads it, once
  16 exchanges are in, now() is within 0.5 ms of the page's own
  high-resolution view of the host's clock (performance.timeOrigin +
  performance.now()) at the 99th percentile, never runs back, and the
  error bound covers every read;
- the player's row appears in the scene's admin API;
- a hidden tab (another tab in front for 3 s) comes back with a burst of
  exchanges and no backwards step; so does a page frozen and resumed;
- a screenshot of the page is saved (TEST_OUT/demo.png).
"""
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

HERE = os.path.dirname(os.path.abspath(__file__))
PKG = os.environ["TEST_PKG"]
OUT = os.environ["TEST_OUT"]
WS = os.environ["TICKSYNC_WS_GATE"]
ADMIN = os.environ["TICKSYNC_ADMIN"]
PLAYER = 4201


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def until(what, f, timeout=10.0):
    end = time.time() + timeout
    while time.time() < end:
        v = f()
        if v:
            return v
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def http_ok(url):
    try:
        with urllib.request.urlopen(url) as r:
            return r.status == 200
    except OSError:
        return False


def clock_error_ms(driver, script):
    """How far script's server time (ms) is from this host's real clock,
    read between two reads of it: the tightest of five tries. Returns the
    distance outside the bracket (0 when inside) and the bracket's width."""
    best = None
    for _ in range(5):
        before = time.time() * 1000
        v = driver.execute_script(script)
        after = time.time() * 1000
        if best is None or after - before < best[2] - best[0]:
            best = (before, v, after)
    before, v, after = best
    outside = max(before - v, v - after, 0)
    return outside, after - before, v


# Runs in the page: n frames of requestAnimationFrame, each reading now()
# between two reads of the page's clock, as a game's frame reads it.
with open(os.path.join(HERE, "wallclock.mjs")) as f:
    WALLCLOCK = f.read().replace("export function", "function")

FRAME_LOOP = WALLCLOCK + """
const [frames, done] = arguments;
const c = ticksyncDemo.client, page = () => performance.timeOrigin + performance.now();
// The reference is the page's wall clock, timeOrigin + performance.now(),
// timeOrigin's own offset from the system clock taken off (wallclock.mjs).
const bias = systemClockBias(page);
const host = () => page() - bias;
// the reference is read from the page's coarsened clock too: its bracket
// may be off by the clock's grain each side, as the library measured it
// (the module the demo page imported, the same instance)
let grain = Infinity;
const offs = [], bounds = [], outside = [], far = [];
let last = 0, backwards = 0, uncovered = 0, start = performance.now();
function frame() {
  const h0 = host(), v = c.now(), h1 = host();
  const off = Math.max(0, h0 - v, v - h1), bound = c.errorBound();
  offs.push(off); bounds.push(bound);
  if (off > bound + grain && uncovered++ < 3)
    outside.push(`${off.toFixed(3)} ms off, bound ${bound.toFixed(3)} ms, frame ${offs.length}`);
  if (off > 0.5 && far.length < 8)   // what the clock had learnt when it read far off
    far.push(`frame ${offs.length} at ${(performance.now() - start).toFixed(0)} ms: ${off.toFixed(3)} ms off, `
             + `${c.stats().accepted} samples accepted, round trip ${c.rtt().toFixed(3)} ms`);
  backwards += v < last; last = v;
  if (offs.length < frames)
    return requestAnimationFrame(frame);
  const q = (a, p) => a.slice().sort((x, y) => x - y)[Math.min(a.length - 1, Math.floor(a.length * p))];
  done({ n: offs.length, span_ms: performance.now() - start, p50: q(offs, 0.5), p99: q(offs, 0.99),
         max: q(offs, 1), bound_p50: q(bounds, 0.5), backwards, uncovered, outside, far, grain, bias });
}
import('../ticksync.mjs').then((m) => { grain = m.clockGrainMs(); requestAnimationFrame(frame); });
"""


def main():
    port = free_port()
    server = subprocess.Popen([sys.executable, os.path.join(HERE, "..", "serve.py"), PKG, str(port)])
    opts = webdriver.ChromeOptions()
    opts.binary_location = "/usr/bin/chromium"
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,900"):
        opts.add_argument(a)
    driver = None
    failures = 0
    try:
        until("the static server", lambda: http_ok(f"http://127.0.0.1:{port}/demo/index.html"))
        driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)
        driver.set_script_timeout(10)
        driver.get(f"http://127.0.0.1:{port}/demo/index.html?ws=ws://{WS}/&player={PLAYER}")
        until("the page to sync", lambda: driver.execute_script(
            "return window.ticksyncDemo && ticksyncDemo.client && ticksyncDemo.client.synced"), 15)

        def check(name, f):
            nonlocal failures
            try:
                f()
                print(f"ok   {name}")
            except AssertionError as e:
                failures += 1
                print(f"FAIL {name}: {e}")

        def now_agrees():
            outside, width, v = clock_error_ms(driver, "return ticksyncDemo.client.now()")
            assert outside <= 5, f"now() {v:.3f} is {outside:.3f} ms outside the host's [{width:.3f} ms] bracket"
            bound = driver.execute_script("return ticksyncDemo.client.errorBound()")
            assert bound < 5, f"error bound {bound} ms"

        def frame_loop_reads():
            # The reference: the page's timeOrigin + performance.now() is the
            # host's wall clock at µs grain (100 µs in a page that is not
            # cross-origin isolated). First check it against this process's
            # clock, as far as a WebDriver call can tell.
            outside, width, v = clock_error_ms(driver, "return performance.timeOrigin + performance.now()")
            assert outside <= 2, f"the page's clock {v:.3f} is {outside:.3f} ms off the host's [{width:.3f} ms]"
            # Once the clock is past its first burst: the burst's six
            # exchanges meet the page still loading, and on a busy two-core
            # machine the least of them was 2.09 ms round, 0.6 ms lopsided
            # (CI, 2026-11-27). Reading once a frame is what is checked here;
            # how soon the estimate settles is the bench's (RESULTS 5c reads
            # from a second after sync).
            until("16 exchanges accepted", lambda: driver.execute_script(
                "return ticksyncDemo.client.stats().accepted") >= 16, 40)
            r = driver.execute_async_script(FRAME_LOOP, 6 * 60)
            print(f"     rAF reads: {r['n']} frames in {r['span_ms']:.0f} ms, off the host's clock "
                  f"p50 {r['p50'] * 1000:.0f} us, p99 {r['p99'] * 1000:.0f} us, worst {r['max'] * 1000:.0f} us; "
                  f"bound p50 {r['bound_p50'] * 1000:.0f} us; clock grain {r['grain'] * 1000:.0f} us, page clock "
                  f"{r['bias'] * 1000:+.0f} us off the system's")
            assert r["n"] >= 300, f"only {r['n']} frames"
            assert r["p99"] <= 0.5, f"p99 {r['p99']:.3f} ms off the host's clock; {'; '.join(r['far'])}"
            assert r["backwards"] == 0, f"now() went back {r['backwards']} times"
            assert r["uncovered"] == 0, (f"{r['uncovered']} reads outside the error bound and the reference's "
                                         f"grain ({r['grain'] * 1000:.0f} us): {'; '.join(r['outside'])}")

        def shown_agrees():
            # what the page shows, moved on by how long ago it was shown
            script = ("const el = document.getElementById('clock');"
                      "return Number(el.dataset.serverMs) + (performance.now() - Number(el.dataset.shownAt));")
            outside, width, v = clock_error_ms(driver, script)
            assert outside <= 5, f"shown {v:.3f} is {outside:.3f} ms outside the host's [{width:.3f} ms] bracket"
            text = driver.find_element("id", "clock").text
            assert text.endswith(" UTC") and text.count(":") == 2, text
            shown = time.strftime("%H:%M:", time.gmtime(v / 1000))
            assert text.startswith(shown) or v % 60000 < 1000, f"{text} vs {shown}"

        def row_in_admin():
            def row():
                try:
                    with urllib.request.urlopen(f"http://{ADMIN}/v1/players/{PLAYER}") as r:
                        body = json.load(r)
                        return body if body.get("samples", 0) >= 4 and body.get("online") else None
                except OSError:
                    return None
            body = until("the player's row", row)
            assert 0 < body["srtt_us"] < 50000, body

        def resumes_without_stepping_back(hide):
            before = driver.execute_script(
                "return [ticksyncDemo.client.stats().samples, ticksyncDemo.resumes, ticksyncDemo.client.stats().resumes]")
            hide()
            until("a burst of exchanges after the resume", lambda: driver.execute_script(
                "return ticksyncDemo.client.stats().samples") >= before[0] + 4, 5)
            state = driver.execute_script(
                "return { backstep: ticksyncDemo.backstep, resumes: ticksyncDemo.resumes, hidden: ticksyncDemo.hidden }")
            assert state["resumes"] > before[1], f"no resume seen: {state}"
            counted = driver.execute_script("return ticksyncDemo.client.stats().resumes")
            assert counted > before[2], f"the clock did not count the resume: {counted}"
            assert state["backstep"] == 0, f"the shown time went back {state['backstep']} ms"
            now_agrees()

        def hidden_tab_then_back():
            page = driver.current_window_handle
            driver.switch_to.new_window("tab")
            driver.get("about:blank")
            time.sleep(3)
            driver.close()
            driver.switch_to.window(page)
            hidden = driver.execute_script("return [document.visibilityState, ticksyncDemo.hidden]")
            assert hidden[1] >= 1, f"the tab was never hidden: {hidden}"

        def frozen_then_resumed():
            driver.execute_cdp_cmd("Page.setWebLifecycleState", {"state": "frozen"})
            time.sleep(3)
            driver.execute_cdp_cmd("Page.setWebLifecycleState", {"state": "active"})

        check("the page's now() agrees with the host's clock within 5 ms", now_agrees)
        check("read once a frame (requestAnimationFrame), now() is within 0.5 ms of the host's clock (p99)",
              frame_loop_reads)
        check("the shown server time agrees with the host's clock within 5 ms", shown_agrees)
        check("the player's row appears in the admin API", row_in_admin)
        check("a hidden tab resumes without a backwards step", lambda: resumes_without_stepping_back(hidden_tab_then_back))
        check("a frozen page resumes without a backwards step", lambda: resumes_without_stepping_back(frozen_then_resumed))
        time.sleep(2)   # a few points on the chart
        shot = os.path.join(OUT, "demo.png")
        driver.save_screenshot(shot)
        print(f"screenshot: {shot}")
        # the page's own errors (a freeze that drops the WebSocket is logged as network: it reconnects)
        errors = [e for e in driver.get_log("browser") if e.get("level") == "SEVERE" and e.get("source") != "network"]
        check("no errors in the page's console", lambda: (_ for _ in ()).throw(AssertionError(errors)) if errors else None)
    finally:
        if driver:
            driver.quit()
        server.terminate()
        server.wait()
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
