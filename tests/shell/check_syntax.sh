#!/usr/bin/env bash
# Every shell script of the repository parses (`bash -n`): the helpers in scripts/, CI's entry
# point and the device calls under docs/device-runs/. A device call is written on the development
# machine and runs where each minute is counted; a syntax error found there costs a call.
# Usage: tests/shell/check_syntax.sh [REPO_ROOT]; exits 1 and names each script that fails.
set -u
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$root" || exit 2
checked=0 failed=0
for f in scripts/*.sh .ci/run docs/device-runs/*/*.sh; do
  [ -f "$f" ] || continue
  checked=$((checked + 1))
  if ! out=$(bash -n "$f" 2>&1); then
    failed=$((failed + 1))
    echo "FAIL $f: $out"
  fi
done
echo "$checked scripts checked, $failed failed"
[ "$checked" -gt 0 ] && [ "$failed" -eq 0 ]
