#!/usr/bin/env bash
# bindings/windows/run-tests.sh BUILD_DIR - libticksync for Windows: cross-
# builds it with mingw-w64 (build.sh, into BUILD_DIR/windows) and runs its C
# test, against ticksync.dll and against the static library, under Debian's
# wine64, headless, against a real gate and scene (bindings/stack.sh) on
# this host's loopback.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$1" && pwd)
out=$build/windows
bash "$here/build.sh" "$out" >/dev/null
wine=$(command -v wine64 || echo /usr/lib/wine/wine64)
[ -x "$wine" ] || { echo "no wine64: apt-get install wine64" >&2; exit 1; }
export WINEPREFIX=$out/wineprefix WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=" DISPLAY=
"$wine" wineboot --init >/dev/null 2>&1 || true   # the prefix, once: later runs find it made
cd "$out/bin"
bash "$here/../stack.sh" "$build" bash -c '
  set -e
  for exe in test_windows.exe test_windows_static.exe; do
    echo "== $exe (wine64)"
    "'"$wine"'" "$exe" "$TICKSYNC_GATE" "$TICKSYNC_SECURE_GATE"
  done'
