#!/usr/bin/env bash
# tests/test_k8s.sh BUILD_DIR - deploy/k8s renders with `kubectl kustomize`,
# its sources and the rendering pass yamllint, and tests/k8s_check.py
# checks the objects and runs every container's command line against the
# real binaries' --check-config.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
tmp=$(mktemp -d /tmp/ts-k8s-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

echo "== kubectl kustomize deploy/k8s"
kubectl kustomize "$root/deploy/k8s" >"$tmp/rendered.yaml" || fail "kustomize"
echo "$(grep -c '^kind:' "$tmp/rendered.yaml") objects"
echo "== yamllint"
yamllint -s -c "$root/deploy/k8s/yamllint.yml" "$root"/deploy/k8s/*.yaml "$tmp/rendered.yaml" || fail "yamllint"
echo "== the objects, and each command line's --check-config"
# Debian's python3 has python3-yaml (deploy/install-deps.sh); another
# python3 first in PATH may not
/usr/bin/python3 "$root/tests/k8s_check.py" "$tmp/rendered.yaml" "$build" "$tmp" || fail "k8s_check.py"
echo ok
