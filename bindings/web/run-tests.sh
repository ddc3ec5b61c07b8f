#!/usr/bin/env bash
# bindings/web/run-tests.sh BUILD_DIR - the browser package's tests: its
# types under tsc, what npm would pack, then the module under Node.js and the demo page in
# headless Chromium, both against a real gate and scene (bindings/stack.sh)
# and a static server for the page. The screenshot is left in
# BUILD_DIR/bindings/web/demo.png.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$1" && pwd)
pkg=$build/bindings/web/pkg
[ -f "$pkg/ticksync_wasm.wasm" ] || { echo "no $pkg/ticksync_wasm.wasm: build the ticksync_web target" >&2; exit 1; }

echo "== types (tsc --strict)"
tsc --strict --noEmit --target es2020 --lib es2020,dom --module es2020 --moduleResolution node \
  "$here/tests/types.ts" 2>&1 \
  || { echo "tsc failed" >&2; exit 1; }

echo "== the npm package (npm pack --dry-run)"
files=$(cd "$pkg" && npm pack --dry-run --json 2>/dev/null \
          | python3 -c 'import json, sys; print(" ".join(sorted(f["path"] for f in json.load(sys.stdin)[0]["files"])))')
want="README.md package.json ticksync.d.ts ticksync.mjs ticksync_wasm.mjs ticksync_wasm.wasm"
[ "$files" = "$want" ] || { echo "the package holds '$files', not '$want'" >&2; exit 1; }
echo "$files"

export TEST_PKG=$pkg TEST_OUT=$build/bindings/web
bash "$here/../stack.sh" "$build" bash -c '
  set -e
  echo "== Node.js"
  node --experimental-websocket --no-warnings "'"$here"'/tests/test_node.mjs"
  echo "== Chromium"
  /usr/bin/python3 "'"$here"'/tests/test_browser.py"'
