#!/usr/bin/env bash
# bindings/windows/build.sh OUT_DIR - libticksync for Windows x86_64,
# cross-built with Debian's mingw-w64: OUT_DIR/bin/ticksync.dll,
# OUT_DIR/lib/libticksync.dll.a (its import library) and libticksync.a
# (static), ticksync.h, and the C test programs test_windows.exe (against
# the DLL) and test_windows_static.exe.
#
# Debian packages msgpack-c and libsodium only for Linux, so both are
# built here for mingw-w64 from Debian's own source packages of them
# (unpacked by deploy/install-deps.sh --tests into /usr/local/src/ticksync-deps),
# each with its own build system, into OUT_DIR/deps. They are built once.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=$(mkdir -p "$1" && cd "$1" && pwd)
src=${TICKSYNC_DEPS_SRC:-/usr/local/src/ticksync-deps}
deps=$out/deps
host=x86_64-w64-mingw32
for d in msgpack-c libsodium; do
  [ -d "$src/$d" ] || { echo "no $src/$d: bash deploy/install-deps.sh --tests" >&2; exit 1; }
done
command -v $host-gcc >/dev/null || { echo "no $host-gcc: apt-get install gcc-mingw-w64-x86-64" >&2; exit 1; }
log() { echo "windows: $*" >&2; }

if [ ! -f "$deps/lib/libsodium.a" ]; then
  log "libsodium for $host (Debian's source, its own autotools)"
  rm -rf "$out/libsodium-src" "$out/libsodium-build"
  cp -r "$src/libsodium" "$out/libsodium-src"
  (cd "$out/libsodium-src" && { [ -x configure ] || ./autogen.sh -s; }) >"$out/libsodium.log" 2>&1
  mkdir -p "$out/libsodium-build"
  (cd "$out/libsodium-build" \
    && "$out/libsodium-src/configure" --host=$host --prefix="$deps" --disable-shared --enable-static \
         --enable-minimal --disable-dependency-tracking \
    && make -j"$(nproc)" && make install) >>"$out/libsodium.log" 2>&1 \
    || { tail -30 "$out/libsodium.log" >&2; exit 1; }
fi
if [ ! -f "$deps/lib/libmsgpackc.a" ]; then
  log "msgpack-c for $host (Debian's source, its own CMake)"
  cmake -S "$src/msgpack-c" -B "$out/msgpack-build" -DCMAKE_TOOLCHAIN_FILE="$here/mingw-w64.cmake" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$deps" -DMSGPACK_BUILD_TESTS=OFF \
    -DMSGPACK_BUILD_EXAMPLES=OFF -DMSGPACK_ENABLE_SHARED=OFF >"$out/msgpack.log" 2>&1 \
    && cmake --build "$out/msgpack-build" -j"$(nproc)" >>"$out/msgpack.log" 2>&1 \
    && cmake --install "$out/msgpack-build" >>"$out/msgpack.log" 2>&1 \
    || { tail -30 "$out/msgpack.log" >&2; exit 1; }
fi

log "libticksync for $host"
export PKG_CONFIG_LIBDIR=$deps/lib/pkgconfig PKG_CONFIG_PATH= TICKSYNC_WIN_DEPS=$deps
cmake -S "$root" -B "$out/build" -DCMAKE_TOOLCHAIN_FILE="$here/mingw-w64.cmake" -DCMAKE_BUILD_TYPE=Release \
  -DTICKSYNC_LIBRARY_ONLY=ON -DTICKSYNC_WERROR=ON -DCMAKE_INSTALL_PREFIX="$out" >"$out/build.log" 2>&1 \
  && cmake --build "$out/build" -j"$(nproc)" >>"$out/build.log" 2>&1 \
  && cmake --install "$out/build" >>"$out/build.log" 2>&1 \
  || { tail -40 "$out/build.log" >&2; exit 1; }
cp "$out/build/bindings/windows/"test_windows*.exe "$out/bin/"
ls "$out/bin"
