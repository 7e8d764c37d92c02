#!/usr/bin/env bash
# Session 8, device call A: v8a (the row scales as constants without the L2 norm in bwd_grad and
# fwd_intra; the fused norm's q', k', dq' kept in registers through bwd_grad's stage 5), the
# .carry/before/libkda-v8a.so, against v7b (b56e373, .carry/before/libkda-v7b.so).
#   every output bit the same as v7b (--same-bits, all 8 variants on m2, ragged, R2, two 4doc keys);
#   GPU tests (the launch template of session 7's refactor runs here for the first time);
#   time against v7b, interleaved, with stages, on the four fwd+bwd target keys;
#   the FP64 check and bitwise repeat of 4doc:raw:off:replay (cut by session 7's time limit).
set -u
. scripts/device-env.sh
B=.carry/before/libkda-v7b.so
A=.carry/before/libkda-v8a.so
kb="$bin/kda-bench --log-level warn"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$out/gpu.txt" 2>&1
timeout 150 $kb --library $A --before $B --same-bits --no-timing --ops fwd,bwd --decay normal,fast \
  --check-heads 0 --rows 'ragged:*:*:*,m2:*:*:*,R2:*:*:saved,4doc:g:off:replay,4doc:raw:fused:saved' \
  --out "$out/samebits.json" > "$out/samebits.log" 2>&1
echo "same-bits exit $?: $(grep -c DIFFERENT "$out/samebits.log") DIFFERENT, $(grep -c identical "$out/samebits.log") identical"
grep DIFFERENT "$out/samebits.log" | head -5
KDA_LIBRARY=$A timeout 60 $bin/gpu_fwd_tests > "$out/gpu_fwd_tests.log" 2>&1
echo "gpu_fwd_tests exit $?: $(grep -E '^\[  (PASSED|FAILED) ' "$out/gpu_fwd_tests.log" | tr '\n' ' ')"
KDA_LIBRARY=$A timeout 90 $bin/gpu_bwd_tests > "$out/gpu_bwd_tests.log" 2>&1
echo "gpu_bwd_tests exit $?: $(grep -E '^\[  (PASSED|FAILED) ' "$out/gpu_bwd_tests.log" | tr '\n' ' ')"
grep -E "^\[  FAILED  \] [a-z]" "$out/gpu_bwd_tests.log" | sed 's/,.*//' | sort -u | head -12
timeout 170 $kb --rows '4doc:raw:fused:saved,4doc:g:off:replay,4doc:raw:off:saved,1doc:g:fused:saved' \
  --ops fwd,bwd,fwd+bwd --stages --library $A --before $B --out "$out/ab-big.json" > "$out/ab-big.log" 2>&1
echo "A/B big vs v7b exit $?"
grep -E "^\|" "$out/ab-big.log" | grep -vE "^\| *(---|row)" | head -40
timeout 100 $kb --library $A --no-timing --check --check-heads 1 --repeat-check 2 --ops fwd,bwd --rows '4doc:raw:off:replay' \
  --out "$out/check-4doc-raw-off-replay.json" > "$out/check-4doc-raw-off-replay.log" 2>&1
echo "check 4doc:raw:off:replay exit $?: $(grep -cE ' FAIL' "$out/check-4doc-raw-off-replay.log") FAIL lines"
grep -E "FAIL|repeat-check|identical|DIFFERENT" "$out/check-4doc-raw-off-replay.log" | head -8
tar -C "$out" -czf "$out/call-a-logs.tgz" $(cd "$out" && ls *.log *.json *.txt) && (cd "$out" && rm -f *.log *.json *.txt)
