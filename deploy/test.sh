#!/usr/bin/env bash
# README command 2: installs what is missing, builds with warnings as
# errors, and runs every test (one CTest entry per test file).
set -euo pipefail
cd "$(dirname "$0")/.."
bash deploy/install-deps.sh --tests
bash deploy/build.sh build -DTICKSYNC_WERROR=ON -DTICKSYNC_TESTS=ON
cd build && ctest --output-on-failure
