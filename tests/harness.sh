# tests/harness.sh - sourced by the shell tests that start the real
# programs: a work folder, the processes started, and how a test fails.
#
#   harness_begin NAME   tmp=/tmp/ts-NAME-XXXXXX and pids=(); at exit every
#                        pid in pids is killed (SIGTERM) and tmp removed
#   fail REASON...       the reason and the last lines of each log in tmp
#                        (and one folder down) on stderr, exit 1
#   wait_http URL        until URL answers 2xx (15 s), else fail

harness_begin() {
  tmp=$(mktemp -d "/tmp/ts-$1-XXXXXX")
  pids=()
  trap harness_cleanup EXIT
}

harness_cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$tmp"
}

fail() {
  echo "FAIL: $*" >&2
  for f in "$tmp"/*.log "$tmp"/*/*.log; do
    [ -f "$f" ] && { echo "--- $f" >&2; tail -5 "$f" >&2; }
  done
  exit 1
}

wait_http() {
  for _ in $(seq 1 150); do curl -fsS "$1" >/dev/null 2>&1 && return 0; sleep 0.1; done
  fail "nothing answers $1"
}
