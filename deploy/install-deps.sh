#!/usr/bin/env bash
# deploy/install-deps.sh [--tests] - installs the Debian packages ticksync
# needs: to build and run the stack (README command 1), and with --tests
# also what the tests, fuzzers, benchmarks and bindings need (README
# command 2). Idempotent, non-interactive; needs root (or sudo).
set -euo pipefail
# The WebSocket edge needs wslay, http-parser and nettle; the browser demo
# the local stack serves needs emscripten (libticksync in WebAssembly) and
# python3 (its static server).
pkgs=(build-essential cmake pkg-config libzmq3-dev libczmq-dev libmsgpack-dev libsqlite3-dev
      libsodium-dev libmicrohttpd-dev libjansson-dev libinih-dev sqlite3 curl
      libwslay-dev libhttp-parser-dev nettle-dev emscripten python3)
if [ "${1:-}" = --tests ]; then
  pkgs+=(libcriterion-dev prometheus docker-compose gnuplot-nox jq clang libclang-rt-14-dev systemd valgrind
         python3-venv python3-pytest mono-mcs mono-runtime chromium chromium-driver python3-selenium
         node-typescript node-ws)
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# msgpack-c for WebAssembly: Debian packages it only for the host, so
# build-wasm.sh builds it from Debian's own source package of the same
# version, fetched here (a deb-src entry is added for it if none exists).
src_dir=/usr/local/src/ticksync-deps
if [ ! -f "$src_dir/msgpack-c/CMakeLists.txt" ]; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  if ! apt-get source --print-uris -qq msgpack-c >/dev/null 2>&1; then
    . /etc/os-release
    uris=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
    printf 'Types: deb-src\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
      "${uris:-http://deb.debian.org/debian}" "$VERSION_CODENAME" | $SUDO tee /etc/apt/sources.list.d/ticksync-src.sources >/dev/null
    $SUDO apt-get update -qq
  fi
  tmp=$(mktemp -d)
  (cd "$tmp" && apt-get source --download-only -qq msgpack-c >/dev/null 2>&1 && tar xf msgpack-c_*.orig.tar.*)
  $SUDO mkdir -p "$src_dir"
  $SUDO rm -rf "$src_dir/msgpack-c"
  $SUDO mv "$tmp"/msgpack-c-*/ "$src_dir/msgpack-c"
  rm -rf "$tmp"
fi
