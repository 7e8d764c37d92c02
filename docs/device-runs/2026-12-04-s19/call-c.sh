#!/usr/bin/env bash
# Session 19, device call C. v34b as landed (the carried libkda.so): the timing tests (graph
# replay bits now on both paths), FP64 on fresh inputs, and the forward of the big rows (their
# 32/64-column state passes have new register allocations: the parameter block grew) against the
# session's start.
set -u
. scripts/device-env.sh
HEAD=$bin/libkda-head.so
export LIB=$bin/libkda.so
KDA_LIBRARY=$LIB timeout 120 $bin/gpu_timing_tests > "$out/gpu_timing_tests.log" 2>&1
echo "gpu_timing_tests exit $?: $(grep -E '^\[  (PASSED|FAILED) +\] [0-9]' "$out/gpu_timing_tests.log" | tr '\n' ' ')"
timeout 150 $bin/kda-bench --log-level warn --library $LIB --rows 'm2:*:*:saved,R2:*:*:saved,ragged:*:*:saved' --ops fwd,bwd \
  --check --repeat-check 2 --no-timing --seed 20261207 --out "$out/fresh.json" > "$out/fresh.log" 2>&1
echo "fresh exit $?: $(grep -cw ok "$out/fresh.log") ok, $(grep -cw FAIL "$out/fresh.log") FAIL"
grep -wE "FAIL|DIFFERENT" "$out/fresh.log" | head -8
AB_SHOW='fwd \||fwd_state' ab v34b-big $LIB $HEAD 200 '4doc:g:off:saved,1doc:raw:fused:saved,4doc:raw:off:replay,1doc:g:fused:replay' fwd
tar -C "$out" -czf "$out/call-c-logs.tgz" $(cd "$out" && ls *.log *.json) && (cd "$out" && rm -f *.log *.json)
