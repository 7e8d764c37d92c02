#!/usr/bin/env bash
# Session 16, device call A: v23, bwd_grad beside the 16-column bwd_dh (programmatic dependent
# launch, per-tile ready flags, chunks in reverse position order).
#   .carry/bin/libkda.so        the working tree (v23)
#   .carry/bin/libkda-base.so   HEAD at the session's start (30a5991, v22)
set -u
. scripts/device-env.sh
HEAD=$bin/libkda-base.so
kb="$bin/kda-bench --log-level warn"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
same_bits own "" 'm2:*:*:*,R2:*:*:*,ragged:*:*:*'
same_bits vt64 64 'm2:*:*:*,ragged:*:*:*'
gpu_tests v23
KDA_STATE_VTILE=64 gpu_tests v23-vt64
sanitize 16
timeout 120 $bin/gpu_timing_tests > "$out/gpu_timing_tests.log" 2>&1
echo "gpu_timing_tests exit $?: $(grep -E '^\[  (PASSED|FAILED) +\] [0-9]' "$out/gpu_timing_tests.log" | tr '\n' ' ')"
timeout 200 $kb --rows 'R2:*:*:*' --ops bwd --check --repeat-check 3 --no-timing --out "$out/check.json" \
  > "$out/check.log" 2>&1
echo "check+repeat exit $?"; grep -E "FAIL|differ|identical" "$out/check.log" | head -12
timeout 120 $kb --rows 'R2:g:off:saved,m2:raw:fused:replay' --ops fwd+bwd --graph --check --samples 5 \
  --out "$out/graph.json" > "$out/graph.log" 2>&1
echo "graph+check exit $?"; grep -E "^\| [0-9A-Za-z]+:" "$out/graph.log" | head -4
timeout 300 $kb --before $HEAD --rows 'R2:*:*:*,m2:g:off:saved,m2:raw:fused:replay,4doc:g:off:replay' \
  --ops bwd,fwd+bwd --out "$out/ab.json" > "$out/ab.log" 2>&1
echo "A/B exit $?"; grep -E "^\| [0-9A-Za-z]+:" "$out/ab.log"
tar -C "$out" -czf "$out/call-a-logs.tgz" $(cd "$out" && ls *.log *.json) && (cd "$out" && rm -f *.log *.json)
