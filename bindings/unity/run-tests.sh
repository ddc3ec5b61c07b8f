#!/usr/bin/env bash
# bindings/unity/run-tests.sh BUILD_DIR - builds the Unity package's runtime
# and tests/TestClient.cs with Debian's mcs, and runs it with mono against
# the real gate (bindings/stack.sh), libticksync.so from the build.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$1" && pwd)
out=$(mktemp -d /tmp/ts-cs-XXXXXX)
trap 'rm -rf "$out"' EXIT
mcs -warnaserror -out:"$out/TestClient.exe" "$here"/com.ticksync.client/Runtime/*.cs "$here/tests/TestClient.cs"
export LD_LIBRARY_PATH="$build/lib/ticksync${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
preload=()
if grep -q '^TICKSYNC_SANITIZE:BOOL=ON' "$build/CMakeCache.txt"; then   # mono is not built with them
  preload=(env "LD_PRELOAD=$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
           "ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0")
fi
exec bash "$here/../stack.sh" "$build" "${preload[@]}" mono "$out/TestClient.exe"
