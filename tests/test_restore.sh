#!/usr/bin/env bash
# tests/test_restore.sh BUILD_DIR - online backups, as README.md's
# "Backups" section tells an operator to take and restore them: a scene
# serving 1,000 bot players is copied by `ticksync-admin backup` while the
# bot plays on; the copy passes PRAGMA integrity_check, and a fresh scene
# started on it answers for every player. Bad uses of the command fail with
# a reason and leave no file.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/tests/ports.sh"
build=$(cd "$1" && pwd)
source "$root/tests/harness.sh"
harness_begin backup

base=$(free_base 24000 300 6)
gate=$base scene=$((base + 1)) admin=$((base + 2)) metrics=$((base + 3)) scene2=$((base + 4)) admin2=$((base + 5))
players=1000
admin_cli="$build/tools/ticksync-admin"

echo "== a scene, a gate and $players bot players"
"$build/scene/ticksync-scene" --bind "tcp://127.0.0.1:$scene" --admin "127.0.0.1:$admin" --db "$tmp/scene0.db" \
  --flush-ms 100 --history-step-s 1 >"$tmp/scene.log" 2>&1 & pids+=($!)
wait_http "http://127.0.0.1:$admin/healthz"
"$build/gate/ticksync-gate" --listen "127.0.0.1:$gate" --scenes "tcp://127.0.0.1:$scene" \
  --metrics "127.0.0.1:$metrics" >"$tmp/gate.log" 2>&1 & pids+=($!)
wait_http "http://127.0.0.1:$metrics/healthz"
"$build/tools/ticksync-bot" --gate "127.0.0.1:$gate" --players $players --duration-s 0 --jitter exponential \
  --loss 0.01 --quiet >"$tmp/bot.log" 2>&1 & pids+=($!)
known=0
for _ in $(seq 1 300); do
  known=$(curl -fsS "http://127.0.0.1:$admin/v1/stats" | jq .players_known)
  [ "$known" = $players ] && break
  sleep 0.1
done
[ "$known" = $players ] || fail "the scene knows $known players, not $players"
sleep 3   # every player measured, and history steps written

echo "== ticksync-admin backup, while the bot plays"
before=$(curl -fsS "http://127.0.0.1:$admin/v1/stats" | jq .exchanges)
for k in 1 2 3; do   # each copy is whole, however the flushes fall
  "$admin_cli" --admin "http://127.0.0.1:$admin" backup --out "$tmp/backup$k.db" || fail "backup $k"
  [ "$(sqlite3 "$tmp/backup$k.db" 'PRAGMA integrity_check')" = ok ] || fail "backup $k: integrity_check"
  rows=$(sqlite3 "$tmp/backup$k.db" 'SELECT count(*) FROM player_latency')
  [ "$rows" = $players ] || fail "backup $k holds $rows players"
  [ ! -e "$tmp/backup$k.db.partial" ] || fail "backup $k left its partial file"
done
sleep 1
after=$(curl -fsS "http://127.0.0.1:$admin/v1/stats" | jq .exchanges)
[ "$after" -gt "$before" ] || fail "the scene stopped serving during the backups ($before, then $after exchanges)"
leftovers=$(find "$tmp" -name 'scene0.db.backup-*' | wc -l)
[ "$leftovers" = 0 ] || fail "the scene left $leftovers scratch copies"
history=$(sqlite3 "$tmp/backup3.db" 'SELECT count(*) FROM player_latency_history')
echo "backups whole: $players players, $history history rows in the last; $before -> $after exchanges meanwhile"

echo "== restore into a fresh scene, as README.md says"
mkdir "$tmp/restored"
cp "$tmp/backup3.db" "$tmp/restored/scene0.db"
"$build/scene/ticksync-scene" --bind "tcp://127.0.0.1:$scene2" --admin "127.0.0.1:$admin2" \
  --db "$tmp/restored/scene0.db" >"$tmp/restored.log" 2>&1 & pids+=($!)
wait_http "http://127.0.0.1:$admin2/healthz"
urls=()
for id in $(seq 1 $players); do urls+=(-o /dev/null "http://127.0.0.1:$admin2/v1/players/$id"); done
codes=$(curl -s -w '%{http_code}\n' "${urls[@]}" | sort | uniq -c | awk '{print $2 ":" $1}' | tr '\n' ' ')
[ "$codes" = "200:$players " ] || fail "the restored scene answers: $codes"
restored_history=$(sqlite3 "$tmp/restored/scene0.db" 'SELECT count(*) FROM player_latency_history')
[ "$history" -gt 0 ] && [ "$restored_history" -ge "$history" ] || fail "the restored history has $restored_history rows of $history"
echo "every player answers from the restored scene"

echo "== bad uses fail with a reason and leave nothing"
out=$("$admin_cli" --admin "http://127.0.0.1:$admin,http://127.0.0.1:$admin2" backup --out "$tmp/two.db" 2>&1) \
  && fail "backup of two shards at once succeeded"
echo "$out" | grep -q "one shard" || fail "two URLs: $out"
out=$("$admin_cli" --admin "http://127.0.0.1:$metrics" backup --out "$tmp/gate.db" 2>&1) \
  && fail "the gate's metrics port gave a backup"
echo "$out" | grep -q "answered 404" || fail "a gate's port: $out"
out=$("$admin_cli" --admin "http://127.0.0.1:$admin" backup --out "$tmp/no/such/dir.db" 2>&1) \
  && fail "backup into a missing directory succeeded"
echo "$out" | grep -q "cannot create" || fail "missing directory: $out"
out=$("$admin_cli" --admin "http://127.0.0.1:$admin" backup 2>&1) && fail "backup without --out succeeded"
[ -z "$(find "$tmp" -name '*.partial' -o -name 'gate.db' -o -name 'two.db')" ] || fail "a failed backup left a file"
kill -0 "${pids[0]}" || fail "the scene died"
echo "ok"
