#!/usr/bin/env bash
# bench/websocket.sh - 10. the WebSocket edge: complete exchanges per second
# through the gate's --ws-listen against its own TCP listener, in the same
# run (one gate, one scene), on the throughput bench's shapes (100 and 400
# connections, windows 1, 4 and 16), TCP and WebSocket taking turns so a
# change in the machine's speed hits both. Then the size of libticksync
# for the browser (bindings/web's build), whole and gzipped.
#
# The load generator runs on the same two cores, and its WebSocket end
# masks every byte it sends, so the ratio also carries the client's extra
# cost; the gate's own CPU per exchange (utime + stime from /proc) is
# printed beside it.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
secs=${SECS:-6}
echo "machine: $(machine)"
ws_port=$((BASE + 5))
start_stack --ws-listen "127.0.0.1:$ws_port"
gate_cpu() { awk '{ print $14 + $15 }' "/proc/$GATE_PID/stat"; }   # clock ticks
tick=$(getconf CLK_TCK)
cpu_per() {   # ticks before, after, exchanges/s -> gate µs per exchange
  awk -v a="$1" -v b="$2" -v r="$3" -v s="$secs" -v t="$tick" 'BEGIN { printf "%.2f", r ? (b - a) / t * 1e6 / (r * s) : 0 }'
}
printf '%-10s %12s %12s %6s %14s %14s\n' shape "tcp exch/s" "ws exch/s" ratio "gate us/exch tcp" "ws"
worst=
for conns in 100 400; do
  for window in 1 4 16; do
    rate() { sed -n 's/.* \([0-9]*\) exchanges\/s.*/\1/p'; }
    c0=$(gate_cpu)
    tcp=$(loadgen --target "127.0.0.1:$BASE" --conns $conns --window $window --duration-s "$secs" --warmup-s 0 \
            --first-player $((conns * 1000 + window * 10)) | rate)
    c1=$(gate_cpu)
    ws=$(loadgen --target "127.0.0.1:$ws_port" --ws --conns $conns --window $window --duration-s "$secs" --warmup-s 0 \
           --first-player $((conns * 1000 + window * 10 + 500000)) | rate)
    c2=$(gate_cpu)
    ratio=$(awk -v w="$ws" -v t="$tcp" 'BEGIN { printf "%.2f", t ? w / t : 0 }')
    printf '%-10s %12s %12s %6s %14s %14s\n' "${conns} x $window" "$tcp" "$ws" "$ratio" \
      "$(cpu_per "$c0" "$c1" "$tcp")" "$(cpu_per "$c1" "$c2" "$ws")"
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
