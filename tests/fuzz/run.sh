#!/usr/bin/env bash
# tests/fuzz/run.sh [--seconds S | --runs N] - builds the libFuzzer targets
# (clang, ASan+UBSan) into build-fuzz/ and runs each one on a copy of its
# seed corpus (tests/fuzz/corpus/TARGET). Exits non-zero on the first crash,
# leak or sanitizer report; the reproducer is left in build-fuzz/.
#   CI:        tests/fuzz/run.sh --seconds 10
#   long run:  tests/fuzz/run.sh --runs 10000000
set -euo pipefail
cd "$(dirname "$0")/../.."
limit=(-max_total_time=10)
case "${1:-}" in
  --seconds) limit=(-max_total_time="$2") ;;
  --runs) limit=(-runs="$2") ;;
  "") ;;
  *) echo "usage: $0 [--seconds S | --runs N]" >&2; exit 2 ;;
esac
cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DTICKSYNC_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-fuzz -j "$(nproc)" >/dev/null
for t in frame msg envelope datagram clock; do
  work=build-fuzz/corpus-$t
  rm -rf "$work" && mkdir -p "$work" && cp tests/fuzz/corpus/$t/* "$work/"
  start=$(date +%s)
  out=$(cd build-fuzz && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
        ./tests/fuzz/fuzz_$t "${limit[@]}" -max_len=4200 -print_final_stats=1 "corpus-$t" 2>&1) || {
    echo "$out" | tail -40
    echo "fuzz_$t: FAILED (reproducer in build-fuzz/)" >&2
    exit 1
  }
  runs=$(echo "$out" | awk '/stat::number_of_executed_units/ {print $2}')
  echo "fuzz_$t: $runs executions in $(( $(date +%s) - start )) s, corpus $(ls "$work" | wc -l) inputs, no crash"
done
