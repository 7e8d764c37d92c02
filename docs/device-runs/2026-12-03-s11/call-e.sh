#!/usr/bin/env bash
# Session 11, device call E: v14, fwd_intra's Akk/Aqk sub-blocks in units that share their row
# block (the A operands, k' and q' gated to the block's first row, formed once per unit instead of
# once per sub-block; warps 3, 5, 6, 7 write qg, kg, exp(gamma_C) meanwhile). Expected: the same
# bits as HEAD (each sub-block's sums see the same operands in the same order), fwd_intra and the
# replay path's bwd_intra -4 to -7 %.
#   .carry/bin/libkda.so          v14 (the working tree; harness with the nightly heads fix, 46180fe)
#   .carry/before/libkda-head.so  the landed kernels (HEAD fbacb89)
# GPU tests, same-bits, A/B with stages, and a nightly of call A's five keys (now on the baseline's
# own sampled heads).
set -u
. scripts/device-env.sh
HEAD=.carry/before/libkda-head.so
kb="$bin/kda-bench --log-level warn"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$out/gpu.txt" 2>&1
timeout 60 $kb --before $HEAD --same-bits --no-timing --ops fwd,bwd --decay normal,fast --check-heads 0 \
  --rows 'ragged:*:*:*,m2:*:*:*' --out "$out/samebits.json" > "$out/samebits.log" 2>&1
echo "same-bits v14 vs head exit $?: $(grep -c DIFFERENT "$out/samebits.log") DIFFERENT, $(grep -c identical "$out/samebits.log") identical"
gpu_tests v14
timeout 200 $kb --rows '4doc:g:off:replay,4doc:raw:fused:saved,1doc:g:fused:saved,R2:g:off:saved,m2:g:off:saved' \
  --ops fwd,bwd,fwd+bwd --stages --before $HEAD --out "$out/ab-v14-vs-head.json" > "$out/ab-v14-vs-head.log" 2>&1
echo "A/B v14 vs head exit $?"
grep -E "^\|" "$out/ab-v14-vs-head.log" | grep -E "\| (fwd|bwd|fwd\+bwd|fwd/fwd_intra|bwd/bwd_intra) \|" | grep -v "| 0.0001 |" | head -24
timeout 200 $kb nightly --baseline results/H200-sm_90-132SMs/baseline.json --results-dir "$out/results" \
  --rows 'm2:g:off:saved,m2:raw:fused:replay,R2:g:off:saved,4doc:g:off:replay,4doc:raw:fused:saved' \
  > "$out/nightly.log" 2>&1
echo "nightly exit $?"; grep -E "^\|" "$out/nightly.log" | grep -E "\| (fwd|bwd|fwd\+bwd) \|" | head -16
tail -3 "$out/nightly.log"
cp "$out"/results/*/*.json "$out/" 2>/dev/null; rm -rf "$out/results"
tar -C "$out" -czf "$out/call-e-logs.tgz" $(cd "$out" && ls *.log *.json *.txt) && (cd "$out" && rm -f *.log *.json *.txt)
