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
      libsodium-dev libmicrohttpd-dev libjansson-dev libinih-dev sqlite3 curl libcurl4-openssl-dev
      libwslay-dev libhttp-parser-dev nettle-dev emscripten python3)
if [ "${1:-}" = --tests ]; then
  pkgs+=(libcriterion-dev prometheus docker-compose gnuplot-nox jq clang libclang-rt-14-dev systemd valgrind
         python3-venv python3-pytest mono-mcs mono-runtime chromium chromium-driver python3-selenium
         node-typescript node-ws gcc-mingw-w64-x86-64 g++-mingw-w64-x86-64 wine64 autoconf automake libtool
         yamllint python3-yaml clickhouse-server)
  # deploy/k8s is rendered with `kubectl kustomize`: Debian's client, unless
  # the machine has a kubectl already (its file would clash with the package)
  command -v kubectl >/dev/null || pkgs+=(kubernetes-client)
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

# Sources Debian packages only for Linux, built by the project for other
# targets: msgpack-c for WebAssembly (bindings/web/build-wasm.sh), and with
# --tests msgpack-c and libsodium for Windows (bindings/windows/build.sh).
# Each is Debian's own source package of the version its -dev package has,
# unpacked into /usr/local/src/ticksync-deps/NAME; a deb-src entry is added
# for them if apt has none.
fetch_source() {   # source package name
  local dir=/usr/local/src/ticksync-deps SUDO=""
  [ -f "$dir/$1/.fetched" ] && return 0
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  if ! apt-get source --print-uris -qq "$1" >/dev/null 2>&1; then
    . /etc/os-release
    uris=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
    printf 'Types: deb-src\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
      "${uris:-http://deb.debian.org/debian}" "$VERSION_CODENAME" | $SUDO tee /etc/apt/sources.list.d/ticksync-src.sources >/dev/null
    $SUDO apt-get update -qq
  fi
  local tmp
  tmp=$(mktemp -d)
  (cd "$tmp" && apt-get source --download-only -qq "$1" >/dev/null 2>&1 && tar xf "$1"_*.orig.tar.*)
  $SUDO mkdir -p "$dir"
  $SUDO rm -rf "${dir:?}/$1"
  $SUDO mv "$tmp/$(cd "$tmp" && ls -d "$1"-*/ | head -1)" "$dir/$1"
  $SUDO touch "$dir/$1/.fetched"
  rm -rf "$tmp"
}
fetch_source msgpack-c
if [ "${1:-}" = --tests ]; then
  fetch_source libsodium
fi
