#!/usr/bin/env bash
# tests/test_fleet.sh BUILD_DIR - fleet history in a real ClickHouse
# (Debian's clickhouse-server), as README.md's "Fleet history" sets it up:
# two scenes serving 300 bot players with 1 s history steps, a
# ticksync-export beside each, and:
# - ClickHouse killed with SIGKILL while the exporters ship, down for 3 s,
#   then started again on its data: the exporters count the failures, say
#   so in /healthz, and catch up;
# - an exporter killed with SIGKILL while ClickHouse is down, and started
#   again: it finds its position in ClickHouse;
# - once the scenes stop, the rows in ClickHouse equal each shard's
#   player_latency_history exactly, none stored twice, and `ticksync-admin
#   fleet` counts every exchange and player once, and so does the
#   dashboard's fleet view, which headless Chromium shows;
# - bad input to `fleet` gets a clear error and a non-zero exit.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/tests/ports.sh"
source "$root/tests/clickhouse.sh"
build=$(cd "$1" && pwd)
source "$root/tests/harness.sh"
harness_begin fleet
trap 'kill -9 ${clickhouse_pid:-} 2>/dev/null; harness_cleanup' EXIT   # ClickHouse, whichever start is running
metric() {   # PORT NAME
  curl -fsS "http://127.0.0.1:$1/metrics" | awk -v m="$2" '$1 == m { print $2 }'
}

base=$(free_base 26000 300 12)   # 12 ports from base
ch_http=$base ch_tcp=$((base + 1)) gate=$((base + 2)) gate_metrics=$((base + 3))
scene=($((base + 4)) $((base + 5))) admin=($((base + 6)) $((base + 7))) export=($((base + 8)) $((base + 9)))
ch="http://127.0.0.1:$ch_http"
players=300
admin_cli="$build/tools/ticksync-admin"
clickhouse_start "$tmp/ch" "$ch_http" "$ch_tcp" || fail "clickhouse-server"
echo "ClickHouse $(clickhouse_query "$ch_http" 'SELECT version()')"

start_exporter() {   # SHARD
  "$build/scene/ticksync-export" --db "$tmp/scene$1.db" --shard "$1" --clickhouse "$ch" --history-step-s 1 \
    --settle-ms 1000 --interval-ms 200 --batch-rows 25 --metrics "127.0.0.1:${export[$1]}" >>"$tmp/export$1.log" 2>&1 &
  exporter[$1]=$!
  pids+=($!)
  wait_http "http://127.0.0.1:${export[$1]}/healthz"
}

echo "== two scenes, a gate, $players bot players, an exporter beside each scene"
for k in 0 1; do
  "$build/scene/ticksync-scene" --bind "tcp://127.0.0.1:${scene[$k]}" --admin "127.0.0.1:${admin[$k]}" \
    --db "$tmp/scene$k.db" --flush-ms 100 --history-step-s 1 >"$tmp/scene$k.log" 2>&1 &
  scene_pid[$k]=$!
  pids+=($!)
  wait_http "http://127.0.0.1:${admin[$k]}/healthz"
done
"$build/gate/ticksync-gate" --listen "127.0.0.1:$gate" --scenes "tcp://127.0.0.1:${scene[0]},tcp://127.0.0.1:${scene[1]}" \
  --metrics "127.0.0.1:$gate_metrics" >"$tmp/gate.log" 2>&1 & pids+=($!)
wait_http "http://127.0.0.1:$gate_metrics/healthz"
"$build/tools/ticksync-bot" --gate "127.0.0.1:$gate" --players $players --duration-s 0 --jitter exponential \
  --loss 0.01 --quiet >"$tmp/bot.log" 2>&1 &
bot=$!
pids+=($!)
start_exporter 0
start_exporter 1
sleep 4
for k in 0 1; do
  sent=$(metric "${export[$k]}" ticksync_export_rows_total)
  [ "${sent:-0}" -gt 0 ] || fail "exporter $k sent no row in 4 s"
done
echo "shipping: $(metric "${export[0]}" ticksync_export_rows_total) and $(metric "${export[1]}" ticksync_export_rows_total) rows"

echo "== ClickHouse killed (SIGKILL) while the exporters ship, down 3 s"
kill -9 "$clickhouse_pid"
wait "$clickhouse_pid" 2>/dev/null || true
sleep 1.5
for k in 0 1; do
  failed=$(metric "${export[$k]}" ticksync_export_failures_total)
  [ "${failed:-0}" -gt 0 ] || fail "exporter $k counted no failure with ClickHouse down"
  curl -fsS "http://127.0.0.1:${export[$k]}/healthz" | jq -e '.clickhouse == "down" and (.reason | length > 0)' >/dev/null \
    || fail "exporter $k's /healthz does not say ClickHouse is down"
done
echo "exporter 1 killed (SIGKILL) meanwhile, and started again"
kill -9 "${exporter[1]}"
wait "${exporter[1]}" 2>/dev/null || true
start_exporter 1
sleep 1.5
clickhouse_start "$tmp/ch" "$ch_http" "$ch_tcp" || fail "clickhouse-server, again"
sleep 2
echo "failures counted: $(metric "${export[0]}" ticksync_export_failures_total) and $(metric "${export[1]}" ticksync_export_failures_total)"

echo "== the bot stops, then the scenes (each closes its open steps into the history)"
kill "$bot"
sleep 1.5
for k in 0 1; do kill "${scene_pid[$k]}"; done
for k in 0 1; do wait "${scene_pid[$k]}" || fail "scene $k exited $?"; done

echo "== ClickHouse holds each shard's history, exactly"
columns="player_id, t_us, exchanges, lost, rtt_min_us, rtt_p50_us, rtt_max_us, jitter_us"
for k in 0 1; do
  want=$(sqlite3 "$tmp/scene$k.db" "SELECT count(*) FROM player_latency_history")
  [ "$want" -gt 0 ] || fail "shard $k has no history"
  got=0
  for _ in $(seq 1 100); do
    got=$(clickhouse_query "$ch_http" "SELECT count() FROM ticksync.player_latency_history FINAL WHERE shard = $k")
    [ "$got" = "$want" ] && break
    sleep 0.2
  done
  [ "$got" = "$want" ] || fail "shard $k: ClickHouse has $got rows, SQLite $want"
  sqlite3 -separator $'\t' "$tmp/scene$k.db" \
    "SELECT $columns FROM player_latency_history ORDER BY t_us, player_id" >"$tmp/sqlite$k.tsv"
  clickhouse_query "$ch_http" "SELECT $columns FROM ticksync.player_latency_history FINAL WHERE shard = $k
                               ORDER BY t_us, player_id FORMAT TabSeparated" >"$tmp/clickhouse$k.tsv"
  cmp -s "$tmp/sqlite$k.tsv" "$tmp/clickhouse$k.tsv" \
    || { diff "$tmp/sqlite$k.tsv" "$tmp/clickhouse$k.tsv" | head -5 >&2; fail "shard $k: the rows differ"; }
  # none sent twice either: each exporter goes on right after the last row ClickHouse holds
  stored=$(clickhouse_query "$ch_http" "SELECT count() FROM ticksync.player_latency_history WHERE shard = $k")
  [ "$stored" = "$want" ] || fail "shard $k: $stored rows stored for $want: some were sent twice"
  echo "shard $k: $want rows, equal field for field, none sent twice"
done

echo "== ticksync-admin fleet counts each exchange and player once"
"$admin_cli" --clickhouse "$ch" fleet --since 1h >"$tmp/fleet.txt" || fail "fleet"
cat "$tmp/fleet.txt"
"$admin_cli" --clickhouse "$ch" --json fleet --since 1h -n 5 >"$tmp/fleet.json" || fail "fleet --json"
for k in 0 1; do
  want=$(sqlite3 "$tmp/scene$k.db" "SELECT sum(exchanges) || ' ' || sum(lost) FROM player_latency_history")
  got=$(jq -r "[.hours[] | select(.shard == $k)] | \"\(map(.exchanges) | add) \(map(.lost) | add)\"" "$tmp/fleet.json")
  [ "$got" = "$want" ] || fail "shard $k: fleet counts '$got' exchanges and lost, the history '$want'"
  want=$(sqlite3 -separator ' ' "$tmp/scene$k.db" "SELECT t_us / 3600000000 * 3600000000, count(DISTINCT player_id)
                                                   FROM player_latency_history GROUP BY 1 ORDER BY 1")
  got=$(jq -r ".hours[] | select(.shard == $k) | \"\(.hour_us) \(.players)\"" "$tmp/fleet.json")
  [ "$got" = "$want" ] || fail "shard $k: players an hour '$got', the history '$want'"
done
jq -e '(.worst | length) == 5 and ([.worst[].delay_us[0]] | . == (sort | reverse))' "$tmp/fleet.json" >/dev/null \
  || fail "the worst players are not 5, worst first"

echo "== the dashboard shows the fleet when it has a ClickHouse"
dash=$((base + 10))
"$admin_cli" --admin "http://127.0.0.1:${admin[0]},http://127.0.0.1:${admin[1]}" --clickhouse "$ch" \
  dashboard --listen "127.0.0.1:$dash" >"$tmp/dashboard.log" 2>&1 & pids+=($!)
wait_http "http://127.0.0.1:$dash/healthz"
curl -fsS "http://127.0.0.1:$dash/api/fleet?since=1h" >"$tmp/api.json" || fail "/api/fleet"
[ "$(jq '[.hours[].exchanges] | add' "$tmp/api.json")" = "$(jq '[.hours[].exchanges] | add' "$tmp/fleet.json")" ] \
  || fail "/api/fleet counts other exchanges than fleet"
[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$dash/api/fleet?since=soon")" = 400 ] \
  || fail "/api/fleet took a bad span"
chrome=(chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
        --disable-component-update --disable-sync --user-data-dir="$tmp/chrome" --virtual-time-budget=5000)
timeout 60 "${chrome[@]}" --dump-dom "http://127.0.0.1:$dash/" >"$tmp/dom.html" 2>/dev/null || fail "chromium"
grep -q '<div id="fleet">' "$tmp/dom.html" || fail "the page hides the fleet view"
rows=$(grep -o '[0-9]* shard-hours, updated' "$tmp/dom.html" | grep -o '^[0-9]*' || echo 0)
want=$(jq '.hours | length' "$tmp/api.json")
[ "$rows" = "$want" ] && [ "$rows" -ge 2 ] || fail "the fleet view shows $rows shard-hours, /api/fleet $want"
timeout 60 "${chrome[@]}" --window-size=1280,1300 --screenshot="$build/dashboard-fleet.png" "http://127.0.0.1:$dash/" \
  >/dev/null 2>&1 || true
echo "the page shows $rows shard-hours of the fleet; screenshot: $build/dashboard-fleet.png"
# without --clickhouse there is no fleet view (tests/test_dashboard.sh checks the rest of the page)
"$admin_cli" --admin "http://127.0.0.1:${admin[0]}" dashboard --listen "127.0.0.1:$((dash + 1))" >/dev/null 2>&1 & pids+=($!)
wait_http "http://127.0.0.1:$((dash + 1))/healthz"
[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$((dash + 1))/api/fleet")" = 404 ] \
  || fail "a dashboard without ClickHouse serves /api/fleet"

echo "== bad input to fleet"
expect_error() {   # STATUS PATTERN ARGS...
  local want=$1 pattern=$2 out rc
  shift 2
  set +e
  out=$("$admin_cli" "$@" 2>&1)
  rc=$?
  set -e
  [ "$rc" = "$want" ] || fail "'$*' exited $rc, not $want: $out"
  echo "$out" | grep -q "$pattern" || fail "'$*' said '$out', not '$pattern'"
  echo "$* -> $rc: $out"
}
expect_error 2 "is not a span" --clickhouse "$ch" fleet --since yesterday
expect_error 2 "not a plain name" --clickhouse "$ch" --clickhouse-db "x; DROP TABLE y" fleet
expect_error 1 "no fleet history" --clickhouse "$ch" --clickhouse-db nothing_here fleet
expect_error 1 "ClickHouse" --clickhouse "http://127.0.0.1:$gate_metrics" fleet
expect_error 1 "Couldn't connect\|refused" --clickhouse "http://127.0.0.1:1" fleet
expect_error 1 "not an http" --clickhouse "ftp://x" fleet
echo "ok"
