#!/usr/bin/env bash
# deploy/install-deps.sh [--tests] - installs the Debian packages ticksync
# needs: to build and run the stack (README command 1), and with --tests
# also what the tests, fuzzers, benchmarks and bindings need (README
# command 2). Idempotent, non-interactive; needs root (or sudo).
set -euo pipefail
pkgs=(build-essential cmake pkg-config libzmq3-dev libczmq-dev libmsgpack-dev libsqlite3-dev
      libsodium-dev libmicrohttpd-dev libjansson-dev libinih-dev sqlite3 curl)
if [ "${1:-}" = --tests ]; then
  pkgs+=(libcriterion-dev prometheus docker-compose gnuplot-nox jq clang libclang-rt-14-dev systemd valgrind
         python3-venv python3-pytest mono-mcs mono-runtime chromium)
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
