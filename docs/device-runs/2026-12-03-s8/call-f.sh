#!/usr/bin/env bash
# Session 8, device call F (run inline, recorded here): FP64 check (one sampled head) and bitwise
# repeat of four big keys on the v8c build in .carry/bin.
set -u
. scripts/device-env.sh
timeout 200 $bin/kda-bench --log-level warn --no-timing --check --check-heads 1 --repeat-check 2 --ops fwd,bwd \
  --rows '1doc:raw:fused:replay,4doc:g:fused:saved,1doc:g:off:replay,4doc:raw:off:replay' \
  --out $out/check-big.json > $out/check-big.log 2>&1
echo "exit $?: $(grep -cE ' FAIL' $out/check-big.log) FAIL, $(grep -c DIFFERENT $out/check-big.log) DIFFERENT"
grep -E " FAIL|repeat-check" $out/check-big.log | cut -c1-120
