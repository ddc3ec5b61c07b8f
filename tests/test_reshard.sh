#!/usr/bin/env bash
# tests/test_reshard.sh BUILD_DIR - growing the shard set from 2 to 3 while
# 1,000 bot players play, as README.md's "Growing the shard set" tells an
# operator to: start the new scene, restart the gate with the three, then
# `ticksync-admin reshard`. Afterwards:
# - every player's row is on exactly one shard, the one its id hashes to
#   among three, and the admin API's fan-out finds each player once;
# - every history row a moved player had on its old shard before the move
#   is on its new shard, field for field, and none is left behind or
#   doubled; the players that stayed keep theirs untouched;
# - a moved player's counts carry on from its old shard's;
# - the routes refuse bad input, and a second run finds nothing to move.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/tests/ports.sh"
build=$(cd "$1" && pwd)
source "$root/tests/harness.sh"
harness_begin reshard

base=$(free_base 27000 300 10)
gate=$base gate_metrics=$((base + 1))
scene=($((base + 2)) $((base + 3)) $((base + 4))) admin=($((base + 5)) $((base + 6)) $((base + 7)))
players=1000
admin_cli="$build/tools/ticksync-admin"
urls="http://127.0.0.1:${admin[0]},http://127.0.0.1:${admin[1]},http://127.0.0.1:${admin[2]}"

start_scene() {   # K
  "$build/scene/ticksync-scene" --bind "tcp://127.0.0.1:${scene[$1]}" --admin "127.0.0.1:${admin[$1]}" \
    --db "$tmp/scene$1.db" --flush-ms 100 --history-step-s 1 --idle-s 2 >"$tmp/scene$1.log" 2>&1 & pids+=($!)
  wait_http "http://127.0.0.1:${admin[$1]}/healthz"
}
start_gate() {   # SCENES
  "$build/gate/ticksync-gate" --listen "127.0.0.1:$gate" --scenes "$1" --metrics "127.0.0.1:$gate_metrics" \
    >>"$tmp/gate.log" 2>&1 &
  gate_pid=$!
  pids+=($!)
  wait_http "http://127.0.0.1:$gate_metrics/healthz"
}
hist_sql="SELECT player_id, t_us, exchanges, lost, rtt_min_us, rtt_p50_us, rtt_max_us, jitter_us FROM player_latency_history"

echo "== 2 shards, a gate, $players bot players"
start_scene 0
start_scene 1
start_gate "tcp://127.0.0.1:${scene[0]},tcp://127.0.0.1:${scene[1]}"
"$build/tools/ticksync-bot" --gate "127.0.0.1:$gate" --players $players --duration-s 0 --jitter exponential \
  --loss 0.01 --quiet >"$tmp/bot.log" 2>&1 & pids+=($!)
for _ in $(seq 1 300); do
  known=$(( $(curl -fsS "http://127.0.0.1:${admin[0]}/v1/stats" | jq .players_known) \
          + $(curl -fsS "http://127.0.0.1:${admin[1]}/v1/stats" | jq .players_known) ))
  [ "$known" = $players ] && break
  sleep 0.1
done
[ "$known" = $players ] || fail "the shards know $known players, not $players"
sleep 4   # a few history steps each

echo "== a third shard, and the gate restarted on the three"
start_scene 2
cut_us=$(date +%s%6N)
kill "$gate_pid"
wait "$gate_pid" 2>/dev/null || true
start_gate "tcp://127.0.0.1:${scene[0]},tcp://127.0.0.1:${scene[1]},tcp://127.0.0.1:${scene[2]}"
sleep 8   # the players back through it, and quiet on their old shards (--idle-s 2 and a step)
frozen=$((cut_us - 2000000))   # steps before this are closed, all on the old shards
for k in 0 1; do
  sqlite3 -separator ' ' "$tmp/scene$k.db" "$hist_sql WHERE t_us < $frozen ORDER BY player_id, t_us" >"$tmp/before$k"
  sqlite3 -separator ' ' "$tmp/scene$k.db" "SELECT player_id, samples, lost FROM player_latency" >"$tmp/rows-before$k"
done
cat "$tmp/before0" "$tmp/before1" | sort -k1,1n -k2,2n >"$tmp/before"
cat "$tmp/rows-before0" "$tmp/rows-before1" | sort -k1,1n >"$tmp/rows-before"
[ "$(sqlite3 "$tmp/scene2.db" "SELECT count(*) FROM player_latency_history WHERE t_us < $frozen")" = 0 ] \
  || fail "the new shard has history from before it started"

echo "== ticksync-admin reshard, while the bot plays"
"$admin_cli" --admin "$urls" reshard --journal "$tmp/journal" --wait-s 30 | tee "$tmp/reshard.out" \
  || fail "reshard"
moved=$(awk '/players moved to the shard/ { print $1 }' "$tmp/reshard.out")
[ "${moved:-0}" -gt 200 ] || fail "only ${moved:-0} players moved (about a third of $players should)"
[ -z "$(ls -A "$tmp/journal")" ] || fail "the journal kept a batch"
sleep 1   # the adopted rows flushed

echo "== every player once, on its shard"
for k in 0 1 2; do
  sqlite3 "$tmp/scene$k.db" "SELECT player_id FROM player_latency" | sed "s/\$/ $k/" 
done | sort -k1,1n >"$tmp/where"
[ "$(wc -l <"$tmp/where")" = $players ] || fail "$(wc -l <"$tmp/where") rows for $players players"
[ "$(cut -d' ' -f1 "$tmp/where" | uniq -d | wc -l)" = 0 ] || fail "a player has rows on two shards"
cat >"$tmp/onshard.py" <<'PY'
import sys
def jump(key, n):   # Lamping and Veach's jump consistent hash, as lib/shard.c (the gate's routing)
    b, j = -1, 0
    while j < n:
        b = j
        key = (key * 2862933555777941757 + 1) & (2**64 - 1)
        j = int((b + 1) * (float(1 << 31) / float((key >> 33) + 1)))
    return b
bad = [l for l in open(sys.argv[1]) if jump(int(l.split()[0]), 3) != int(l.split()[1])]
print(f"{len(bad)} players off their shard", file=sys.stderr) if bad else None
sys.exit(1 if bad else 0)
PY
python3 "$tmp/onshard.py" "$tmp/where" || fail "a player's row is not on the shard its id hashes to"
known=0
for k in 0 1 2; do known=$((known + $(curl -fsS "http://127.0.0.1:${admin[$k]}/v1/stats" | jq .players_known))); done
[ "$known" = $players ] || fail "the shards' stats know $known players"
"$admin_cli" --admin "$urls" --json top -n 1000 | jq -r '.players[].player_id' | sort -n >"$tmp/top"
[ "$(wc -l <"$tmp/top")" = $players ] && [ "$(uniq -d "$tmp/top" | wc -l)" = 0 ] \
  || fail "the admin fan-out lists $(wc -l <"$tmp/top") players, $(uniq -d "$tmp/top" | wc -l) twice"
echo "$players players, each on its shard, each found once by the fan-out"

echo "== the history before the move: all there, none left behind or doubled"
for k in 0 1 2; do
  sqlite3 -separator ' ' "$tmp/scene$k.db" "$hist_sql WHERE t_us < $frozen"
done | sort -k1,1n -k2,2n >"$tmp/after"
cmp -s "$tmp/before" "$tmp/after" || { diff "$tmp/before" "$tmp/after" | head -5 >&2; fail "the history before the move changed"; }
for k in 0 1 2; do
  sqlite3 "$tmp/scene$k.db" "SELECT DISTINCT player_id FROM player_latency_history" | sed "s/\$/ $k/"
done >"$tmp/history-where"
python3 "$tmp/onshard.py" "$tmp/history-where" || fail "history left on a shard its player no longer hashes to"
moved_rows=$(sqlite3 "$tmp/scene2.db" "SELECT count(*) FROM player_latency_history WHERE t_us < $frozen")
[ "$moved_rows" -gt 0 ] || fail "no history reached the new shard"
echo "$(wc -l <"$tmp/before") history rows before the move, the same after; $moved_rows of them now on shard 2"

echo "== a moved player's counts carry on"
sqlite3 -separator ' ' "$tmp/scene2.db" "SELECT player_id, samples, lost FROM player_latency" | LC_ALL=C sort -k1,1 >"$tmp/rows2"
LC_ALL=C sort -k1,1 "$tmp/rows-before" >"$tmp/rows-before.sorted"
[ "$(LC_ALL=C join "$tmp/rows2" "$tmp/rows-before.sorted" | wc -l)" = "$(wc -l <"$tmp/rows2")" ] \
  || fail "a player on shard 2 had no row on the old shards"
short=$(LC_ALL=C join "$tmp/rows2" "$tmp/rows-before.sorted" | awk '$2 < $4 { n++ } END { print n + 0 }')
[ "$short" = 0 ] || fail "$short moved players have fewer samples than on their old shard"
echo "the $(wc -l <"$tmp/rows2") players on shard 2 have at least the samples they had"

echo "== bad input, and nothing left to move"
code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
[ "$(code -X POST "http://127.0.0.1:${admin[0]}/v1/reshard/release?shards=3&shard=3")" = 400 ] || fail "shard 3 of 3"
[ "$(code -X POST "http://127.0.0.1:${admin[0]}/v1/reshard/release?shards=x&shard=0")" = 400 ] || fail "shards x"
[ "$(code "http://127.0.0.1:${admin[0]}/v1/reshard/release?shards=3&shard=0")" = 405 ] || fail "a GET"
[ "$(code -X POST -d 'not json' "http://127.0.0.1:${admin[2]}/v1/reshard/adopt?shards=3&shard=2")" = 400 ] \
  || fail "adopt of not JSON"
wrong=$(awk '$2 == 0 { print $1; exit }' "$tmp/where")
[ "$(code -X POST -d "{\"players\":[{\"row\":{\"player_id\":$wrong},\"history\":[]}]}" \
      "http://127.0.0.1:${admin[2]}/v1/reshard/adopt?shards=3&shard=2")" = 409 ] || fail "adopt of another shard's player"
"$admin_cli" --admin "$urls" reshard --journal "$tmp/journal" --wait-s 0 >"$tmp/again.out" || fail "a second run"
grep -q "^0 players moved" "$tmp/again.out" || fail "a second run moved: $(tail -1 "$tmp/again.out")"
out=$("$admin_cli" --admin "http://127.0.0.1:${admin[0]}" reshard 2>&1) && fail "reshard of one shard"
echo "$out" | grep -q "give every shard's URL" || fail "one shard: $out"
kill -0 "${pids[0]}" && kill -0 "${pids[1]}" || fail "a scene died"
echo "ok"
