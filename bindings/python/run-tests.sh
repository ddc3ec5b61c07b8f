#!/usr/bin/env bash
# bindings/python/run-tests.sh BUILD_DIR - installs the package into a fresh
# venv with `pip install`, as a user would (offline: setup.py builds with the
# venv's own setuptools), and runs its pytest tests against the real gate
# (bindings/stack.sh). Debian's python3 and python3-pytest.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$1" && pwd)
venv=$(mktemp -d /tmp/ts-venv-XXXXXX)
trap 'rm -rf "$venv"' EXIT
/usr/bin/python3 -m venv --system-site-packages "$venv"
cp -r "$here" "$venv/src"   # setup.py builds in place: keep the source tree clean
PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INDEX=1 "$venv/bin/pip" install --quiet "$venv/src" 2>&1 | grep -v "^\s*$" || true
"$venv/bin/pip" show --quiet ticksync >/dev/null || { echo "the package did not install" >&2; exit 1; }
# A sanitized libticksync.so needs its runtimes loaded first into Python,
# which is not built with them (and whose own allocations are not leaks).
preload=()
if grep -q '^TICKSYNC_SANITIZE:BOOL=ON' "$build/CMakeCache.txt"; then
  preload=(env "LD_PRELOAD=$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
           "ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0")   # (the last setting wins)
fi
cd "$venv"   # import the installed package, not the source tree
exec bash "$here/../stack.sh" "$build" "${preload[@]}" "$venv/bin/python" -m pytest -p no:cacheprovider -q "$here/tests"
