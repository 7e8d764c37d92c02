#!/usr/bin/env bash
# Session 16, device call H: v25 (bwd_grad waits for dh and dv_new only after stage 3a's first
# product, do h^T) against v23 (b119c79): bits, the backward GPU tests, bwd A/B.
set -u
. scripts/device-env.sh
kb="$bin/kda-bench --log-level warn"
export LIB=$bin/libkda-v25.so
same_bits v25 "" 'm2:*:*:*,R2:*:*:*,ragged:*:*:*' $bin/libkda-v23.so
KDA_LIBRARY=$LIB timeout 120 $bin/gpu_bwd_tests > "$out/gpu_bwd_tests-v25.log" 2>&1
echo "gpu_bwd_tests-v25 exit $?: $(grep -E '^\[  (PASSED|FAILED) +\] [0-9]' "$out/gpu_bwd_tests-v25.log" | tr '\n' ' ')"
timeout 200 $kb --library $LIB --before $bin/libkda-v23.so --rows 'R2:g:off:saved,R2:raw:fused:replay,m2:g:off:saved,4doc:g:off:replay,1doc:raw:fused:saved' \
  --ops bwd --stages --out "$out/ab.json" > "$out/ab.log" 2>&1
echo "A/B exit $?"; grep -E "^\| [0-9A-Za-z]+:" "$out/ab.log" | grep -E "\| (bwd|bwd/bwd_grad) \|"
tar -C "$out" -czf "$out/call-h-logs.tgz" $(cd "$out" && ls *.log *.json) && (cd "$out" && rm -f *.log *.json)
