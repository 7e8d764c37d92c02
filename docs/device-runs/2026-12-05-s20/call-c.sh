#!/usr/bin/env bash
# Session 20, device call C. The build to land (the carried libkda.so): v37 (only the last CTA of
# bwd_grad and of fwd_output waits for the pass beside it) with v35 (bwd_dh with two V tiles a
# CTA) on by default. Against the session's start (libkda-head.so): bits, GPU tests, sanitizers;
# the matrix's small part (m2, R2) for the nightly baseline; the big rows, which run neither
# overlap, A/B on four keys.
set -u
. scripts/device-env.sh
HEAD=$bin/libkda-head.so
export LIB=$bin/libkda.so
check_build v37-landed 16
KDA_LIBRARY=$LIB timeout 120 $bin/gpu_timing_tests > "$out/gpu_timing_tests.log" 2>&1
echo "gpu_timing_tests exit $?: $(grep -E '^\[  (PASSED|FAILED) +\] [0-9]' "$out/gpu_timing_tests.log" | tr '\n' ' ')"
sanitize 16
bash scripts/device-matrix.sh small
timeout 150 $bin/kda-bench --log-level warn --library "$LIB" --before "$HEAD" \
  --rows '4doc:g:off:saved,1doc:raw:fused:saved,4doc:raw:off:replay,1doc:g:fused:replay' --ops fwd,bwd \
  --samples 9 --out "$out/ab-big.json" > "$out/ab-big.log" 2>&1
echo "A/B big exit $?"; grep -E "^\| [0-9A-Za-z]+:" "$out/ab-big.log"
tar -C "$out" -czf "$out/call-c-logs.tgz" $(cd "$out" && ls *.log *.json) && (cd "$out" && rm -f *.log *.json)
