#!/usr/bin/env bash
# Session 8, device call B: v8b (v8a + dv_new as a bf16 hi + lo pair from bwd_dh, taken by
# bwd_grad's dv_new v^T: dbeta), the working tree in .carry/bin, against v8a.
#   GPU tests; the FP64 check of every m2/R2 key at both decays with a bitwise repeat; the check
#   of two sampled-head 4doc keys where dbeta sat at 1.001x; time against v8a on the two fwd+bwd
#   keys that missed (stages: bwd_dh, bwd_grad carry the change).
set -u
. scripts/device-env.sh
A=.carry/before/libkda-v8a.so
kb="$bin/kda-bench --log-level warn"
timeout 60 $bin/gpu_fwd_tests > "$out/gpu_fwd_tests.log" 2>&1
echo "gpu_fwd_tests exit $?: $(grep -E '^\[  (PASSED|FAILED) ' "$out/gpu_fwd_tests.log" | tr '\n' ' ')"
timeout 90 $bin/gpu_bwd_tests > "$out/gpu_bwd_tests.log" 2>&1
echo "gpu_bwd_tests exit $?: $(grep -E '^\[  (PASSED|FAILED) ' "$out/gpu_bwd_tests.log" | tr '\n' ' ')"
grep -E "^\[  FAILED  \] [a-z]" "$out/gpu_bwd_tests.log" | sed 's/,.*//' | sort -u | head -12
timeout 140 $kb --no-timing --check --repeat-check 2 --ops fwd,bwd --rows 'm2:*:*:*,R2:*:*:*' \
  --out "$out/check-small.json" > "$out/check-small.log" 2>&1
echo "check m2/R2 exit $?: $(grep -cE ' FAIL' "$out/check-small.log") FAIL lines, $(grep -c DIFFERENT "$out/check-small.log") DIFFERENT"
grep -E " FAIL" "$out/check-small.log" | head -12
grep -hE "^\s+(dv|dbeta) " "$out/check-small.log" | awk '{print $1, $6}' | sort -k2 -g | tail -4
timeout 150 $kb --rows '4doc:raw:fused:saved,4doc:g:off:replay' --ops fwd,bwd,fwd+bwd --stages --before $A \
  --out "$out/ab-v8a.json" > "$out/ab-v8a.log" 2>&1
echo "A/B v8b vs v8a exit $?"
grep -E "^\|" "$out/ab-v8a.log" | grep -vE "^\| *(---|row)" | head -30
timeout 120 $kb --no-timing --check --check-heads 2 --decay fast --ops bwd --rows '4doc:raw:off:saved,4doc:g:off:replay' \
  --out "$out/check-4doc-fast.json" > "$out/check-4doc-fast.log" 2>&1
echo "check 4doc fast exit $?: $(grep -cE ' FAIL' "$out/check-4doc-fast.log") FAIL lines"
grep -hE " FAIL|^\s+(dv|dbeta|dA_log) " "$out/check-4doc-fast.log" | head -8
tar -C "$out" -czf "$out/call-b-logs.tgz" $(cd "$out" && ls *.log *.json) && (cd "$out" && rm -f *.log *.json)
