#!/usr/bin/env bash
# tests/test_deploy.sh BUILD_DIR - the deploy files: the compose file and
# Prometheus config validate, the systemd units verify (against this
# build's binaries), and the local-stack script starts, serves and stops
# cleanly without its live table.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/tests/ports.sh"
build=$(cd "$1" && pwd)
tmp=$(mktemp -d /tmp/ts-deploy-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

echo "== tests/ports.sh: a slot with a taken port or a browser's bad port is passed over"
(free_base 6660 1 10 2>/dev/null) && fail "free_base gave 6660-6669, where browsers refuse 6665-6669"
(free_base 2040 1 10 2>/dev/null) && fail "free_base gave 2040-2049, where browsers refuse 2049"
held=$(free_base 9700 100 2)   # two free ports; the first is then held
python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(); time.sleep(30)' "$held" & holder=$!
for _ in $(seq 100); do port_taken "$held" && break; sleep 0.05; done
(free_base "$held" 1 1 2>/dev/null) && { kill "$holder"; fail "free_base gave $held, which is held"; }
got=$(free_base $((held + 1)) 1 1); kill "$holder"
[ "$got" = $((held + 1)) ] || fail "free_base passed over $((held + 1)), which is free"

echo "== docker-compose config"
docker-compose -f "$root/deploy/docker-compose.yml" config -q || fail "compose file does not validate"
services=$(docker-compose -f "$root/deploy/docker-compose.yml" --profile monitoring --profile tools config --services | sort | tr '\n' ' ')
# (docker-compose 1.29 lists the services of every profile)
[ "$services" = "admin bot clickhouse export0 export1 gate grafana prometheus scene0 scene1 " ] || fail "services: $services"

echo "== promtool check config"
promtool check config "$root/deploy/prometheus.yml" >/dev/null || fail "prometheus.yml"
echo "== promtool check rules, test rules"
promtool check rules "$root/deploy/prometheus/alerts.yml" >/dev/null || fail "alerts.yml"
(cd "$root/deploy/prometheus" && promtool test rules alerts_test.yml >/dev/null) || fail "alerts_test.yml"

echo "== the Grafana dashboard's queries, asked of a real Prometheus"
# an empty Prometheus on loopback evaluates a valid query (to nothing) and
# refuses one that does not parse or mixes types
port=$(free_base 9300 600 1)
printf 'global:\n  scrape_interval: 1h\n' > "$tmp/prom.yml"
prometheus --config.file="$tmp/prom.yml" --storage.tsdb.path="$tmp/tsdb" --web.listen-address="127.0.0.1:$port" \
  >"$tmp/prom.log" 2>&1 &
prom=$!
for _ in $(seq 100); do curl -fs "http://127.0.0.1:$port/-/ready" >/dev/null 2>&1 && break; sleep 0.1; done
nq=0
while IFS= read -r q; do
  nq=$((nq + 1))
  answer=$(curl -s --get "http://127.0.0.1:$port/api/v1/query" --data-urlencode "query=$q")
  [ "$(jq -r .status <<<"$answer")" = success ] || { kill $prom; fail "dashboard query: $q: $answer"; }
done < <(jq -r '.panels[].targets[].expr' "$root/deploy/grafana/dashboards/ticksync.json")
kill $prom; wait $prom 2>/dev/null || true
[ "$nq" -ge 9 ] || fail "only $nq dashboard queries"
echo "$nq queries ok"

echo "== systemd-analyze verify"
sed "s#/usr/local/bin/#$build/gate/#" "$root/deploy/systemd/ticksync-gate.service" > "$tmp/ticksync-gate.service"
sed "s#/usr/local/bin/#$build/scene/#" "$root/deploy/systemd/ticksync-scene@.service" > "$tmp/ticksync-scene@0.service"
sed "s#/usr/local/bin/#$build/scene/#" "$root/deploy/systemd/ticksync-export@.service" > "$tmp/ticksync-export@0.service"
out=$(systemd-analyze verify "$tmp/ticksync-gate.service" "$tmp/ticksync-scene@0.service" "$tmp/ticksync-export@0.service" 2>&1) \
  || fail "units: $out"
[ -z "$out" ] || fail "units: $out"

echo "== example configs are accepted"
# Each file is read in full before the flags; a bad flag then stops the
# program, so the only complaint must be about that flag, not the file.
out=$("$build/gate/ticksync-gate" --config "$root/deploy/gate.conf" --listen bad 2>&1 || true)
[ "$out" = "ticksync-gate: listen: 'bad' is not HOST:PORT" ] || fail "gate.conf: $out"
out=$("$build/scene/ticksync-scene" --config "$root/deploy/scene.conf" --workers 9999 2>&1 || true)
case "$out" in *"workers wants a whole number"*) ;; *) fail "scene.conf: $out" ;; esac

echo "== local stack refuses a base that puts a browser's port on a bad one"
out=$(bash "$root/deploy/local-stack.sh" --no-table --duration 1 --base-port 6665 --build-dir "$build" \
        --data "$tmp/refused" 2>&1) && fail "local-stack started on 6665: $out"
echo "$out" | grep -q "which browsers refuse" || fail "no reason given: $out"

echo "== local stack starts, serves and stops"
# local-stack's ports are base + these: the first slot from the PID's on
# where none is taken or one browsers refuse
stack_ports="0 2 10 11 1470 1471 1472 1480 1490"
for ((n = 0, k = $$ % 400; n < 400; n++, k = (k + 1) % 400)); do
  base=$((20000 + k * 20)) busy=0
  for p in $stack_ports; do port_unusable $((base + p)) && { busy=1; break; }; done
  [ "$busy" = 0 ] && break
done
out=$(bash "$root/deploy/local-stack.sh" --no-table --duration 5 --players 60 --base-port "$base" \
        --build-dir "$build" --data "$tmp/stack" 2>&1) || fail "local-stack: $out"
echo "$out" | grep -q "stopped cleanly" || fail "no clean stop: $out"
echo "$out" | grep -q "dashboard: http://127.0.0.1:$((base + 1480))/" || fail "no dashboard URL: $out"
echo "$out" | grep -q "browser demo: http://127.0.0.1:$((base + 1490))/demo/index.html?ws=ws://127.0.0.1:$((base + 2))/" \
  || fail "no browser demo URL: $out"
online=$(echo "$out" | awk '$1 == "all" { print $2 }')
[ "${online:-0}" -eq 60 ] || fail "expected 60 players online across the shards: $out"
for k in 0 1; do
  n=$(sqlite3 "$tmp/stack/scene$k.db" 'SELECT count(*) FROM player_latency WHERE samples > 0')
  [ "$n" -gt 0 ] || fail "shard $k stored no player"
done
echo "ok"
