#!/usr/bin/env bash
# tests/test_dashboard.sh BUILD_DIR - the operators' dashboard in a real
# browser: two scene shards, a gate and the bot, `ticksync-admin
# dashboard` over both, and headless Chromium (Debian's) opening the page.
# The DOM must show the players the admin API reports as the worst, the
# shards as up, a player's history chart; the screenshot is kept in
# BUILD_DIR/dashboard.png.
set -euo pipefail
build=$(cd "$1" && pwd)
command -v chromium >/dev/null || { echo "chromium is not installed (deploy/install-deps.sh --tests)" >&2; exit 1; }
source "$(dirname "$0")/ports.sh"
base=$(free_base 2010 990 8)
tmp=$(mktemp -d /tmp/ts-dash-XXXXXX)
pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
for k in 0 1; do
  "$build/scene/ticksync-scene" --bind "tcp://127.0.0.1:$((base + k))" --admin "127.0.0.1:$((base + 2 + k))" \
    --db "$tmp/s$k.db" --history-step-s 1 --log-level warn & pids+=($!)
done
"$build/gate/ticksync-gate" --listen "127.0.0.1:$((base + 4))" --metrics "127.0.0.1:$((base + 5))" \
  --scenes "tcp://127.0.0.1:$base,tcp://127.0.0.1:$((base + 1))" --log-level warn & pids+=($!)
admin="http://127.0.0.1:$((base + 2)),http://127.0.0.1:$((base + 3))"
"$build/tools/ticksync-admin" --admin "$admin" dashboard --listen "127.0.0.1:$((base + 6))" 2>/dev/null & pids+=($!)
for _ in $(seq 200); do   # both shards up before the players log in
  [ "$(curl -fs "http://127.0.0.1:$((base + 5))/healthz" 2>/dev/null | jq -r .shards_up)" = 2 ] && break
  sleep 0.05
done
"$build/tools/ticksync-bot" --gate "127.0.0.1:$((base + 4))" --players 60 --duration-s 30 --up-ms 5-60 \
  --down-ms 5-60 --quiet >/dev/null 2>&1 & pids+=($!)
sleep 6

# what the admin API says: the 20 worst players across both shards
want=$(for port in $((base + 2)) $((base + 3)); do
         curl -fs "http://127.0.0.1:$port/v1/players?order=worst&limit=20"
       done | jq -s -r '[.[].players[]] | sort_by(-.delay_us) | .[:20][] | .player_id' | sort)
[ "$(wc -l <<<"$want")" -eq 20 ] || fail "the admin API listed $(wc -l <<<"$want") players"

page="http://127.0.0.1:$((base + 6))/?player=$(head -1 <<<"$want")"
chrome=(chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
        --disable-component-update --disable-sync --user-data-dir="$tmp/chrome" --virtual-time-budget=5000)
timeout 60 "${chrome[@]}" --dump-dom "$page" > "$tmp/dom.html" 2>/dev/null || fail "chromium did not load the page"
got=$(grep -o '<tr data-player="[0-9]*"' "$tmp/dom.html" | head -20 | grep -o '[0-9]*' | sort)
# the delays move between the two reads: the worst 20 must mostly agree
common=$(comm -12 <(echo "$want") <(echo "$got") | wc -l)
[ "$common" -ge 16 ] || fail "the page's worst players ($(echo $got)) are not the API's ($(echo $want))"
grep -q 'updated ' "$tmp/dom.html" || fail "the page never refreshed"
[ "$(grep -c '<td class="down">' "$tmp/dom.html")" -eq 0 ] || fail "a shard shows as down"
online=$(for port in $((base + 2)) $((base + 3)); do curl -fs "http://127.0.0.1:$port/v1/stats"; done |
         jq -s 'map(.players_online) | add')
[ "$online" -eq 60 ] || fail "$online players online, not 60"
grep -q 'steps of 1 s' "$tmp/dom.html" || fail "no history for the player entered"
grep -q '<polyline' "$tmp/dom.html" || fail "no history chart"
timeout 60 "${chrome[@]}" --window-size=1280,1100 --screenshot="$build/dashboard.png" "$page" >/dev/null 2>&1 \
  || fail "no screenshot"
[ -s "$build/dashboard.png" ] || fail "empty screenshot"
echo "the page shows $common of the API's 20 worst players; screenshot: $build/dashboard.png"
echo "1 passed, 0 failed"
