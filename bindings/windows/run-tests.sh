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
wineserver=$(dirname "$wine")/wineserver64
[ -x "$wineserver" ] || wineserver=$(command -v wineserver || echo /usr/lib/wine/wineserver)
export WINEPREFIX=$out/wineprefix WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=" DISPLAY=
# The prefix, once (later runs find it made). wineboot returns before its
# wineserver has written the prefix out, so the script waits for that
# server to end. A prefix left half made (a CI run's ASan pass once found
# system32 empty: "could not load kernel32.dll, status c0000135") is made
# again from nothing, once.
make_prefix() {
  "$wine" wineboot --init >/dev/null 2>&1 || true
  "$wineserver" -w || true
  [ -f "$WINEPREFIX/drive_c/windows/system32/kernel32.dll" ]
}
if ! make_prefix; then
  echo "windows: the wine prefix was left half made; making it again" >&2
  "$wineserver" -k 2>/dev/null || true
  rm -rf "$WINEPREFIX"
  make_prefix || { echo "windows: wineboot could not make $WINEPREFIX" >&2; exit 1; }
fi
cd "$out/bin"
# A test program is run again, once, only when wine itself lost its server
# ("wine client error:0: recvmsg: Connection reset by peer", seen once in a
# CI run's ASan pass): that is wine failing, not the program. Any other
# failure fails at once.
export WINE=$wine WINESERVER=$wineserver
bash "$here/../stack.sh" "$build" bash -c '
  set -e
  run() {
    "$WINE" "$1" "$TICKSYNC_GATE" "$TICKSYNC_SECURE_GATE" 2>"$1.err" && rc=0 || rc=$?
    cat "$1.err" >&2
    return $rc
  }
  for exe in test_windows.exe test_windows_static.exe; do
    echo "== $exe (wine64)"
    run "$exe" && continue
    grep -q "wine client error" "$exe.err" || exit 1
    echo "== $exe: wine lost its server; running it once more" >&2
    "$WINESERVER" -k 2>/dev/null || true
    run "$exe"
  done'
