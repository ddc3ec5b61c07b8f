# tests/ports.sh - sourced by the scripts that start servers on loopback.
# free_base LOW SLOTS WIDTH prints LOW + k * WIDTH for the first k, from one
# drawn from this shell's PID on (so tests running at once spread out), such
# that every one of the WIDTH ports from there is usable:
# - nothing answers on 127.0.0.1 there: a port some other program holds (the
#   machine's own services among them) would make a test's server fail to
#   start;
# - it is not one of the Fetch standard's bad ports, which browsers and
#   Node.js's fetch and WebSocket refuse to connect to without trying
#   (https://fetch.spec.whatwg.org/#bad-port; a CI run drew 6660, whose
#   WebSocket ports 6667 and 6668 are IRC's, and every Node.js test of
#   test_web failed to connect).
# Fails when every slot is taken.

source "$(dirname "${BASH_SOURCE[0]}")/../deploy/browser-ports.sh"

port_taken() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
port_unusable() { browser_refuses "$1" || port_taken "$1"; }

free_base() {
  local low=$1 slots=$2 width=$3 k=$(($$ % $2)) n i base busy
  for ((n = 0; n < slots; n++)); do
    base=$((low + k * width))
    busy=0
    for ((i = 0; i < width; i++)); do
      if port_unusable $((base + i)); then busy=1; break; fi
    done
    if [ "$busy" = 0 ]; then echo "$base"; return 0; fi
    k=$(((k + 1) % slots))
  done
  echo "tests/ports.sh: no $width free ports in a row from $low" >&2
  return 1
}
