#!/usr/bin/env bash
# Session 17, device calls E and F: the 32-key matrix of v26 (commit ef40842), the new nightly
# baseline, with v26 against FP64 on fresh inputs (seed 20261205, not used before) and repeated:
# `call-e.sh small 1doc` (fresh small rows), then `call-e.sh 4doc` (fresh big rows).
set -u
. scripts/device-env.sh
kb="$bin/kda-bench --log-level warn"
$bin/kda-bench --version 2>/dev/null | head -2
bash scripts/device-matrix.sh "$@"
if [ "$1" = small ]; then
  timeout 150 $kb --rows 'm2:*:*:*,R2:*:*:*,ragged:*:*:*' --ops fwd,bwd --check --repeat-check 2 --seed 20261205 \
    --no-timing --out "$out/fresh-small.json" > "$out/fresh-small.log" 2>&1
  echo "fresh small exit $?: $(grep -c ' ok' "$out/fresh-small.log") ok, $(grep -c FAIL "$out/fresh-small.log") FAIL, $(grep -c identical "$out/fresh-small.log") identical, $(grep -ci differ "$out/fresh-small.log") differ"
  grep FAIL -B12 "$out/fresh-small.log" | grep -E "^accuracy|FAIL"
else
  timeout 150 $kb --rows '4doc:raw:fused:replay,1doc:g:off:saved' --ops fwd,bwd --check --check-heads 1 --repeat-check 2 \
    --seed 20261205 --no-timing --out "$out/fresh-big.json" > "$out/fresh-big.log" 2>&1
  echo "fresh big exit $?: $(grep -c ' ok' "$out/fresh-big.log") ok, $(grep -c FAIL "$out/fresh-big.log") FAIL, $(grep -c identical "$out/fresh-big.log") identical"
  grep FAIL -B12 "$out/fresh-big.log" | grep -E "^accuracy|FAIL"
fi
tar -C "$out" -czf "$out/logs-$(IFS=-; echo "$*").tgz" $(cd "$out" && ls *.log *.json 2>/dev/null) && (cd "$out" && rm -f *.log *.json)
