#!/usr/bin/env bash
# bindings/web/build-wasm.sh MSGPACK_SRC WORK_DIR OUT_DIR SOURCE... - libticksync
# for the browser: the estimator, the session and the timeline, the same C
# sources as the native library (SOURCE..., with proto's codec: the list
# bindings/web/CMakeLists.txt gives), compiled by Debian's emscripten into OUT_DIR's
# ticksync_wasm.wasm and its loader ticksync_wasm.mjs (an ES module). UDP
# is left out (TICKSYNC_NO_UDP): a page has no UDP socket.
#
# msgpack-c has no WebAssembly package, so it is built here from Debian's
# own source of it (MSGPACK_SRC, unpacked by deploy/install-deps.sh)
# with its own CMake under emcmake, in WORK_DIR.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
src=$1
work=$2
out=$3
shift 3
mkdir -p "$work" "$out"
# Debian's emscripten runs its JavaScript tools with the machine's node,
# which must find Debian's node modules (acorn) when it is not Debian's own.
export NODE_PATH=${NODE_PATH:+$NODE_PATH:}/usr/share/nodejs
if [ ! -f "$work/libmsgpackc.a" ]; then
  (cd "$work" \
    && emcmake cmake -DMSGPACK_BUILD_TESTS=OFF -DMSGPACK_BUILD_EXAMPLES=OFF -DMSGPACK_ENABLE_SHARED=OFF \
         -DCMAKE_BUILD_TYPE=MinSizeRel "$src" >cmake.log 2>&1 \
    && emmake make -j2 msgpackc >make.log 2>&1) || { cat "$work/"*.log >&2; exit 1; }
fi
exports=(session_new session_destroy session_reset session_hello session_sync session_receive session_receive_at
         session_state session_clock session_server_rtt session_last_error session_replaced
         now error_bound expected_error offset delay frequency synced next_sync message_age stats
         ticks_default server_tick input_tick render_time jitter time_scale resync resume path_changed)
list=_malloc,_free
for f in "${exports[@]}"; do list+=",_ticksync_$f"; done
emcc -Oz -flto -DTICKSYNC_NO_UDP -Wall -Wextra -Werror \
  -I"$work/include" -I"$work/include/msgpack" -I"$src/include" -I"$root/proto" -I"$root/lib/ticksync" \
  "$@" \
  "$work/libmsgpackc.a" \
  -sEXPORTED_FUNCTIONS="$list" -sEXPORTED_RUNTIME_METHODS=HEAPU8 -sWASM_BIGINT -sMODULARIZE -sEXPORT_ES6 \
  -sENVIRONMENT=web -sINITIAL_MEMORY=1MB -sTOTAL_STACK=64KB -sFILESYSTEM=0 \
  -o "$out/ticksync_wasm.mjs"
