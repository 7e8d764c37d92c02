#!/usr/bin/env bash
# Session 11, device call A: the landed build (HEAD fbacb89; kernels cubin-identical to session
# 10's measured v10b + v11) on the device: GPU tests; a nightly against the new baseline on a
# subset of its keys; Nsight Compute profiles (device-env.sh's ncu_kernel, first run) of the two
# largest stages of 4doc:g:off:replay, the replay key that misses 0.5x FLA: bwd_grad (4.45 ms)
# and v11's fwd_intra (1.42 ms).
set -u
. scripts/device-env.sh
kb="$bin/kda-bench --log-level warn"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$out/gpu.txt" 2>&1
gpu_tests head
timeout 200 $kb nightly --baseline results/H200-sm_90-132SMs/baseline.json --results-dir "$out/results" \
  --rows 'm2:g:off:saved,m2:raw:fused:replay,R2:g:off:saved,4doc:g:off:replay,4doc:raw:fused:saved' \
  > "$out/nightly.log" 2>&1
echo "nightly exit $?"; grep -E "^\|" "$out/nightly.log" | grep -E "\| (fwd|bwd|fwd\+bwd) \|" | head -16
tail -4 "$out/nightly.log"
ncu_kernel grad bwd_grad 4doc:g:off:replay bwd
ncu_kernel intra fwd_intra 4doc:g:off:replay fwd
cp "$out"/results/*/*.json "$out/" 2>/dev/null; rm -rf "$out/results"
tar -C "$out" -czf "$out/call-a-logs.tgz" $(cd "$out" && ls *.log *.json *.txt *.csv) && (cd "$out" && rm -f *.log *.json *.txt *.csv)
ls -la "$out"
