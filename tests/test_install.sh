#!/usr/bin/env bash
# tests/test_install.sh BUILD_DIR - `cmake --install` gives a game what it
# needs: the header, shared and static libraries, a pkg-config file and a
# CMake package, each enough to build and run tests/install/example.c; and
# the README's C client, built from the README, syncs with a real gate.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
tmp=$(mktemp -d /tmp/ts-install-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
lib=$(ls -d "$tmp"/prefix/lib*/ | head -1)
export PKG_CONFIG_PATH="$lib/pkgconfig" LD_LIBRARY_PATH="$lib"
# A sanitized build's library needs the sanitizer runtimes in the game too.
san=""
grep -q '^TICKSYNC_SANITIZE:BOOL=ON' "$build/CMakeCache.txt" && san="-fsanitize=address,undefined"

echo "== pkg-config, shared"
cc -std=c11 -Wall -Werror $san -o "$tmp/ex" "$root/tests/install/example.c" $(pkg-config --cflags --libs ticksync)
"$tmp/ex"
echo "== pkg-config, static"
cc -std=c11 -Wall -Werror $san -o "$tmp/ex_static" "$root/tests/install/example.c" $(pkg-config --cflags ticksync) \
   "$lib/libticksync.a" $(pkg-config --libs --static msgpack libsodium) -lm
"$tmp/ex_static"
echo "== CMake find_package"
cmake -S "$root/tests/install" -B "$tmp/game" -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_C_FLAGS="$san" \
      -DCMAKE_EXE_LINKER_FLAGS="$san" >/dev/null
cmake --build "$tmp/game" >/dev/null
"$tmp/game/example_shared"
"$tmp/game/example_static"
echo "== the README's C client, against a real gate"
awk '/^```c$/ { n++; on = n == 1; next } /^```$/ { on = 0 } on' "$root/README.md" > "$tmp/readme.c"
cc -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Werror $san -o "$tmp/readme" "$tmp/readme.c" \
   $(pkg-config --cflags --libs ticksync)
bash "$root/bindings/stack.sh" "$build" bash -c "\"$tmp/readme\" \"\$TICKSYNC_GATE\""
echo "== only the API is exported"
extra=$(nm -D --defined-only "$lib/libticksync.so" | awk '{print $3}' | grep -v '^ticksync_' || true)
[ -z "$extra" ] || { echo "FAIL: exported beyond the API: $extra" >&2; exit 1; }
echo ok
