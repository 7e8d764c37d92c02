#!/usr/bin/env bash
# Session 6, device call 1: the two branches written in session 5 and never run on a GPU.
#   copies (wip/serial-pass-copies): must give the same bits as v6 (main 6b9c025): --same-bits.
#   merged (main + copies + stage4 split, .carry/bin): GPU tests, FP64 check of every m2/R2 key at
#   both decays with a bitwise repeat, and timing against v6 with per-stage times.
set -u
. scripts/device-env.sh
v6=.carry/before/libkda-v6.so
copies=.carry/before/libkda-copies.so
kb="$bin/kda-bench --log-level warn"
timeout 150 $kb --library $copies --before $v6 --same-bits --no-timing --ops fwd,bwd --decay normal,fast \
  --check-heads 0 --rows 'ragged:*:*:saved,m2:*:*:replay,R2:g:off:saved,R2:raw:fused:saved' \
  --out "$out/samebits.json" > "$out/samebits.log" 2>&1
echo "copies vs v6 same-bits exit $?: $(grep -ciE 'different' "$out/samebits.log") lines say different"
timeout 120 $bin/gpu_fwd_tests > "$out/gpu_fwd_tests.log" 2>&1
echo "gpu_fwd_tests exit $?: $(grep -E '^\[  (PASSED|FAILED) ' "$out/gpu_fwd_tests.log" | tr '\n' ' ')"
timeout 200 $bin/gpu_bwd_tests > "$out/gpu_bwd_tests.log" 2>&1
echo "gpu_bwd_tests exit $?: $(grep -E '^\[  (PASSED|FAILED) ' "$out/gpu_bwd_tests.log" | tr '\n' ' ')"
grep -E "^\[  FAILED  \] [a-z]" "$out/gpu_bwd_tests.log" | sed 's/,.*//' | sort -u | head -40
timeout 200 $kb --no-timing --check --repeat-check 2 --ops fwd,bwd --rows 'm2:*:*:*,R2:*:*:*' \
  --out "$out/check-small.json" > "$out/check-small.log" 2>&1
echo "check m2/R2 exit $?"
grep -E "FAIL|DIFFERENT" "$out/check-small.log" | head -20
timeout 200 $kb --rows 'R2:g:off:saved,R2:raw:fused:replay,4doc:raw:off:saved,1doc:g:fused:saved' --ops fwd,bwd \
  --stages --before $v6 --out "$out/ab.json" > "$out/ab.log" 2>&1
echo "A/B exit $?"
grep -E "^\|" "$out/ab.log" | head -60
tar -C "$out" -czf "$out/call1-logs.tgz" $(cd "$out" && ls *.log *.json) && (cd "$out" && rm -f *.log *.json)
