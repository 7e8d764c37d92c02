#!/usr/bin/env bash
# Device run: forward GPU tests, then forward timing + accuracy of the seed rows. Logs to $OUT.
set -u
. "$(dirname "$0")/device-env.sh"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$out/gpu.txt" 2>&1
nproc >> "$out/gpu.txt"
timeout 240 $bin/gpu_fwd_tests 2>&1 | tee "$out/gpu_fwd_tests.log" | grep -E "rel_l2|FAIL|PASSED|FAILED|OK \]|error" | head -80
timeout 200 $bin/kda-bench --rows 'm2:*:*:saved,R2:g:off:saved,1doc:g:fused:saved,4doc:raw:off:saved,4doc:g:off:replay' \
  --ops fwd --check --check-heads 2 --out "$out/fwd.json" --force 2>&1 | tee "$out/run.log" | grep -vE "^\s*$" | tail -70
