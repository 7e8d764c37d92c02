#!/usr/bin/env bash
# Session 7, device call B: v7b (.carry/bin) as the new nightly baseline (scripts/device-baseline.sh:
# 9 keys, fwd/bwd/fwd+bwd, check on 2 heads of the big rows, all of m2/R2, repeat 2), then the
# other 11 small-row keys of the 32-key matrix (call C runs the other 12 big-row keys).
set -u
. scripts/device-env.sh
BASELINE_TIMEOUT=330 scripts/device-baseline.sh
slug=$($bin/kda-bench nightly --print-slug)
timeout 150 $bin/kda-bench --log-level warn --ops fwd,bwd,fwd+bwd --check --repeat-check 2 --force \
  --rows 'm2:*:*:replay,R2:g:off:replay,R2:g:fused:*,R2:raw:*:*' \
  --out "$out/results/$slug/matrix-small-rest.json" > "$out/matrix-small-rest.log" 2>&1
echo "small rest exit $?"
grep -hE "(fwd|bwd|fwd\+bwd) +median|DIFFERENT| FAIL" "$out/matrix-small-rest.log" | cut -c1-90
tar -C "$out" -czf "$out/call-b-logs.tgz" $(cd "$out" && ls *.log) && (cd "$out" && rm -f *.log)
