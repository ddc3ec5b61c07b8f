#!/usr/bin/env bash
# Installs the Debian packages ticksync builds and tests with. Idempotent,
# non-interactive; needs root (or sudo).
set -euo pipefail
pkgs=(build-essential cmake pkg-config libzmq3-dev libczmq-dev libmsgpack-dev libsqlite3-dev
      libsodium-dev libmicrohttpd-dev libjansson-dev libinih-dev libcriterion-dev sqlite3
      curl prometheus docker-compose gnuplot-nox jq clang libclang-rt-14-dev systemd valgrind)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
