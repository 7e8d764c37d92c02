#!/usr/bin/env bash
# Device run: forward GPU tests, then forward timing (+ stages) and accuracy of the seed rows.
# ROWS / CHECK_HEADS / EXTRA override the defaults.
set -u
. "$(dirname "$0")/device-env.sh"
rows=${ROWS:-'m2:*:*:saved,R2:g:off:saved,1doc:g:fused:saved,4doc:raw:off:saved,4doc:raw:fused:saved,4doc:g:off:replay'}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$out/gpu.txt" 2>&1
timeout 240 $bin/gpu_fwd_tests > "$out/gpu_fwd_tests.log" 2>&1
grep -E "FAILED|PASSED|Failure|rel_l2" "$out/gpu_fwd_tests.log" | tail -${TEST_LINES:-6}
timeout 300 $bin/kda-bench --rows "$rows" --ops fwd --stages --check --check-heads "${CHECK_HEADS:-2}" ${EXTRA:-} \
  --out "$out/fwd.json" --force 2>&1 | tee "$out/run.log" | grep -E "median|^  o |FAIL|error|identical|DIFFERENT"
