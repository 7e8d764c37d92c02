#!/usr/bin/env bash
# Session 18, device call C. v32c (the carried libkda.so; what lands as v32): v32b with fewer live
# registers (dgamma_C's row dot and stage 3c's dv_new reads addressed once per 16-byte piece / per
# column chunk). Checks against v29 (bits on every key, GPU tests, sanitizers), FP64 on a fresh
# seed (m2, ragged), A/B against v29 (bwd, fwd+bwd) and against v32b (bwd_grad), and Nsight
# Compute on bwd_grad (4doc:g:off:saved) for the per-phase picture after v32.
set -u
. scripts/device-env.sh
HEAD=$bin/libkda-v29.so
export LIB=$bin/libkda.so
check_build v32c 16
timeout 150 $bin/kda-bench --log-level warn --rows 'm2:*:*:*,ragged:*:*:*' --ops bwd --check --repeat-check 2 \
  --seed 20261206 --no-timing --out "$out/fresh-small.json" > "$out/fresh-small.log" 2>&1
echo "fresh small exit $?: $(grep -c ' ok' "$out/fresh-small.log") ok, $(grep -c FAIL "$out/fresh-small.log") FAIL, $(grep -c identical "$out/fresh-small.log") identical, $(grep -ci differ "$out/fresh-small.log") differ"
grep FAIL -B12 "$out/fresh-small.log" | grep -E "^accuracy|FAIL" | head
ROWS='R2:g:off:saved,R2:g:fused:saved,R2:raw:off:saved,R2:raw:fused:saved,R2:g:fused:replay,m2:g:off:saved,m2:raw:off:replay,4doc:g:off:saved,4doc:raw:fused:saved'
AB_SHOW='(bwd|fwd\+bwd) \||bwd_grad' ab v32c $LIB $HEAD 280 "$ROWS" bwd,fwd+bwd
AB_SHOW='bwd_grad' ab v32c-v32b $LIB $bin/libkda-v32b.so 120 'R2:g:fused:saved,R2:raw:off:saved,4doc:g:off:saved' bwd
sanitize 16
ncu_kernel v32c-grad bwd_grad '4doc:g:off:saved' bwd
tar -C "$out" -czf "$out/call-c-logs.tgz" $(cd "$out" && ls *.log *.json *.csv.gz *.csv 2>/dev/null) && (cd "$out" && rm -f *.log *.json *.csv *.csv.gz)
