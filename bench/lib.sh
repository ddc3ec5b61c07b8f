# bench/lib.sh - sourced by the benchmark scripts: the stack as plain
# processes on loopback, started and stopped around a measurement.
#   BUILD (default build), BASE (default 23700) and WORK (a temp folder).
BUILD=${BUILD:-build}
BASE=${BASE:-23700}
WORK=${WORK:-$(mktemp -d /tmp/ts-bench-XXXXXX)}
GATE_PID= SCENE_PID= ECHO_PID=
[ -x "$BUILD/bench/ticksync-loadgen" ] || bash deploy/build.sh "$BUILD" >/dev/null

wait_http() { for _ in $(seq 1 100); do curl -fs "http://127.0.0.1:$1/healthz" >/dev/null && return 0; sleep 0.1; done; return 1; }

# A gate (under GATE_WRAP) on the scene at BASE + 10, listening on PORT,
# its metrics on METRICS_PORT, with more flags; its pid in STARTED once its
# /healthz answers.
start_gate() {   # PORT METRICS_PORT [flags]
  local port=$1 metrics=$2
  shift 2
  ${GATE_WRAP:-} "$BUILD/gate/ticksync-gate" --listen "127.0.0.1:$port" --scenes "tcp://127.0.0.1:$((BASE + 10))" \
    --metrics "127.0.0.1:$metrics" --sync-rate 1000000 --log-level warn "$@" 2>>"$WORK/gate.log" &
  STARTED=$!
  wait_http "$metrics"
}

# A scene (under SCENE_WRAP, with SCENE_FLAGS and more flags) on a fresh
# database (KEEP_DB=1: on the one there is), ZeroMQ at BASE + 10, admin at
# BASE + 11; its pid in SCENE_PID once its /healthz answers.
start_scene() {   # more scene flags
  ulimit -n "$(ulimit -Hn)"
  [ -n "${KEEP_DB:-}" ] || rm -f "$WORK"/scene.db*
  ${SCENE_WRAP:-} "$BUILD/scene/ticksync-scene" --bind "tcp://127.0.0.1:$((BASE + 10))" --admin "127.0.0.1:$((BASE + 11))" \
    --db "$WORK/scene.db" --log-level warn ${SCENE_FLAGS:-} "$@" 2>>"$WORK/scene.log" &
  SCENE_PID=$!
  wait_http $((BASE + 11))
}

start_stack() {   # more gate flags
  start_scene
  start_gate "$BASE" $((BASE + 12)) "$@"
  GATE_PID=$STARTED
}

# More gates on the same scene, as the concurrency benchmark needs when one
# process may not hold every connection: gate k listens on BASE + 30 + k,
# its metrics on BASE + 60 + k; their pids in MORE_GATES.
MORE_GATES=()
start_more_gates() {   # count
  for k in $(seq 1 "$1"); do
    start_gate $((BASE + 30 + k)) $((BASE + 60 + k))
    MORE_GATES+=("$STARTED")
  done
}

stop_stack() {
  for pid in "${MORE_GATES[@]}"; do kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true; done
  MORE_GATES=()
  [ -n "$GATE_PID" ] && kill -TERM "$GATE_PID" 2>/dev/null && wait "$GATE_PID" 2>/dev/null || true
  [ -n "$SCENE_PID" ] && kill -TERM "$SCENE_PID" 2>/dev/null && wait "$SCENE_PID" 2>/dev/null || true
  GATE_PID= SCENE_PID=
}

start_echo() {
  ulimit -n "$(ulimit -Hn)"
  ${ECHO_WRAP:-} "$BUILD/bench/ticksync-echo" "127.0.0.1:$((BASE + 20))" &
  ECHO_PID=$!
  for _ in $(seq 1 50); do (exec 3<>/dev/tcp/127.0.0.1/$((BASE + 20))) 2>/dev/null && return 0; sleep 0.1; done
}

stop_echo() { [ -n "$ECHO_PID" ] && kill -TERM "$ECHO_PID" 2>/dev/null && wait "$ECHO_PID" 2>/dev/null || true; ECHO_PID=; }

# LOADGEN_NICE=N runs the load generator at that niceness, so the server
# threads it shares the two cores with win the CPU first (as they would
# with the load on other machines).
loadgen() { ${LOADGEN_NICE:+nice -n "$LOADGEN_NICE"} "$BUILD/bench/ticksync-loadgen" "$@"; }
# Its summary line, read: exchanges a second (through the stack), or
# frames back a second (--echo).
rate() { sed -n 's/.* \([0-9]*\) exchanges\/s.*/\1/p'; }
frames() { sed -n 's/.*: \([0-9]*\) frames back per second/\1/p'; }

rss_kb() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }

machine() {
  echo "$(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'))," \
       "$(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -sr), $(date -u +%F)"
}

trap 'stop_stack; stop_echo; rm -rf "$WORK"' EXIT
