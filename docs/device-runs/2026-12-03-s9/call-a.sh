#!/usr/bin/env bash
# Session 9, device call A: v9a (bwd_grad on a 16-warp grid, 4 column groups, 128 registers a
# thread; the working tree in .carry/bin) against v8c (.carry/before/libkda-v8c.so):
#   which tensors keep their bits (expected: all but dbeta, and dq/dk of the fused-norm rows);
#   GPU tests; time against v8c, interleaved, with stages, on the fwd+bwd target keys and R2/m2.
set -u
. scripts/device-env.sh
B=.carry/before/libkda-v8c.so
kb="$bin/kda-bench --log-level warn"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$out/gpu.txt" 2>&1
timeout 90 $kb --before $B --same-bits --no-timing --ops fwd,bwd --decay normal,fast \
  --check-heads 0 --rows 'ragged:*:*:*,m2:*:*:*,R2:*:*:saved' \
  --out "$out/samebits.json" > "$out/samebits.log" 2>&1
echo "same-bits exit $?: $(grep -c DIFFERENT "$out/samebits.log") DIFFERENT, $(grep -c identical "$out/samebits.log") identical"
grep DIFFERENT "$out/samebits.log" | awk '{print $1, $2, $3}' | sort | uniq -c | sort -rn | head -12
timeout 60 $bin/gpu_fwd_tests > "$out/gpu_fwd_tests.log" 2>&1
echo "gpu_fwd_tests exit $?: $(grep -E '^\[  (PASSED|FAILED) ' "$out/gpu_fwd_tests.log" | tr '\n' ' ')"
timeout 120 $bin/gpu_bwd_tests > "$out/gpu_bwd_tests.log" 2>&1
echo "gpu_bwd_tests exit $?: $(grep -E '^\[  (PASSED|FAILED) ' "$out/gpu_bwd_tests.log" | tr '\n' ' ')"
grep -E "^\[  FAILED  \] [a-z]" "$out/gpu_bwd_tests.log" | sed 's/,.*//' | sort -u | head -12
timeout 200 $kb --rows '4doc:raw:fused:saved,4doc:g:off:replay,4doc:raw:off:saved,1doc:g:fused:saved,R2:g:off:saved,m2:raw:fused:saved' \
  --ops bwd,fwd+bwd --stages --before $B --out "$out/ab.json" > "$out/ab.log" 2>&1
echo "A/B vs v8c exit $?"
grep -E "^\|" "$out/ab.log" | grep -vE "^\| *(---|row)" | grep -E "bwd_grad|fwd\+bwd|\| bwd \|" | head -40
tar -C "$out" -czf "$out/call-a-logs.tgz" $(cd "$out" && ls *.log *.json *.txt) && (cd "$out" && rm -f *.log *.json *.txt)
