#!/usr/bin/env bash
# bindings/unity/run-tests.sh BUILD_DIR - builds the Unity package's runtime
# and tests/TestClient.cs with Debian's mcs, and runs it with mono against
# the real gate (bindings/stack.sh), libticksync.so from the build.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$1" && pwd)
out=$(mktemp -d /tmp/ts-cs-XXXXXX)
trap 'rm -rf "$out"' EXIT
# The README's example, compiled as it stands there: its first csharp block.
awk '/^```csharp$/ { n++; on = n == 1; next } /^```$/ { on = 0 } on' "$here/README.md" > "$out/GameClock.cs"
grep -q 'class GameClock' "$out/GameClock.cs" || { echo "no GameClock in README.md" >&2; exit 1; }
mcs -warnaserror -out:"$out/TestClient.exe" "$here"/com.ticksync.client/Runtime/*.cs "$out/GameClock.cs" \
  "$here/tests/TestClient.cs"
export LD_LIBRARY_PATH="$build/lib/ticksync${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
preload=()
if grep -q '^TICKSYNC_SANITIZE:BOOL=ON' "$build/CMakeCache.txt"; then   # mono is not built with them
  preload=(env "LD_PRELOAD=$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
           "ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0")
fi
exec bash "$here/../stack.sh" "$build" "${preload[@]}" mono "$out/TestClient.exe"
