#!/usr/bin/env bash
# bench/websocket.sh - 10. the WebSocket edge: complete exchanges per second
# through the gate's --ws-listen against its own TCP listener, in the same
# run (one gate, one scene), on the throughput bench's shapes (100 and 400
# connections, windows 1, 4 and 16), TCP and WebSocket taking turns so a
# change in the machine's speed hits both: ROUNDS (3) rounds of SECS (2) s
# each, in the order TCP-WS, WS-TCP, TCP-WS, ..., so a steady drift in the
# machine's speed cancels; the ratio is of the rates summed over the rounds,
# with the rounds' own ratios' range beside it. Then the size of
# libticksync for the browser (bindings/web's build), whole and gzipped.
#
# The load generator runs on the same two cores, and its WebSocket end
# masks every byte it sends, so the ratio also carries the client's extra
# cost; the gate's own CPU per exchange (utime + stime from /proc) is
# printed beside it.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
secs=${SECS:-2}
rounds=${ROUNDS:-3}
echo "machine: $(machine)"
ws_port=$((BASE + 5))
start_stack --ws-listen "127.0.0.1:$ws_port"
gate_cpu() { awk '{ print $14 + $15 }' "/proc/$GATE_PID/stat"; }   # clock ticks
tick=$(getconf CLK_TCK)
cpu_per() {   # ticks over the rounds, mean exchanges/s -> gate µs per exchange
  awk -v c="$1" -v r="$2" -v s="$secs" -v n="$rounds" -v t="$tick" 'BEGIN { printf "%.2f", r ? c / t * 1e6 / (r * s * n) : 0 }'
}
declare -A sum cpu last
one() {   # one slice: tcp|ws, round -> adds to sum[] and cpu[]
  local how=$1 r=$2 c0 x
  c0=$(gate_cpu)
  if [ "$how" = ws ]; then
    x=$(loadgen --target "127.0.0.1:$ws_port" --ws --conns $conns --window $window --duration-s "$secs" --warmup-s 0 \
          --first-player $((r * 1000000 + conns * 1000 + window * 10 + 500000)) | rate)
  else
    x=$(loadgen --target "127.0.0.1:$BASE" --conns $conns --window $window --duration-s "$secs" --warmup-s 0 \
          --first-player $((r * 1000000 + conns * 1000 + window * 10)) | rate)
  fi
  sum[$how]=$((${sum[$how]} + x)); cpu[$how]=$((${cpu[$how]} + $(gate_cpu) - c0)); last[$how]=$x
}
echo "each shape: $rounds rounds of ${secs} s TCP and ${secs} s WebSocket, in the order TW WT TW ..."
printf '%-10s %12s %12s %6s %12s %16s %8s\n' shape "tcp exch/s" "ws exch/s" ratio "rounds" "gate us/exch tcp" "ws"
worst=
for conns in 100 400; do
  for window in 1 4 16; do
    sum=([tcp]=0 [ws]=0); cpu=([tcp]=0 [ws]=0); each=()
    for r in $(seq 1 "$rounds"); do
      if [ $((r % 2)) = 1 ]; then one tcp "$r"; one ws "$r"; else one ws "$r"; one tcp "$r"; fi
      each+=("$(awk -v w="${last[ws]}" -v t="${last[tcp]}" 'BEGIN { printf "%.2f", t ? w / t : 0 }')")
    done
    tcp=$((sum[tcp] / rounds)) ws=$((sum[ws] / rounds))
    ratio=$(awk -v w="$ws" -v t="$tcp" 'BEGIN { printf "%.2f", t ? w / t : 0 }')
    range=$(printf '%s\n' "${each[@]}" | sort -n | sed -n '1p;$p' | paste -sd-)
    printf '%-10s %12s %12s %6s %12s %16s %8s\n' "${conns} x $window" "$tcp" "$ws" "$ratio" "$range" \
      "$(cpu_per "${cpu[tcp]}" "$tcp")" "$(cpu_per "${cpu[ws]}" "$ws")"
    worst=$(awk -v r="$ratio" -v w="${worst:-99}" 'BEGIN { print (r < w ? r : w) }')
  done
done
stop_stack
echo "lowest ratio: $worst (target: at least 0.85, #33)"
wasm=$BUILD/bindings/web/pkg/ticksync_wasm.wasm
if [ -f "$wasm" ]; then
  for f in "$wasm" "${wasm%.wasm}.mjs" "$BUILD/bindings/web/pkg/ticksync.mjs"; do
    printf '%-22s %7d bytes, %6d gzipped\n' "$(basename "$f")" "$(stat -c %s "$f")" "$(gzip -9c "$f" | wc -c)"
  done
else
  echo "no $wasm: libticksync for the browser is not built (needs emscripten)"
fi
