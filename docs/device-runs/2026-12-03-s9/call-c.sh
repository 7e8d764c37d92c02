#!/usr/bin/env bash
# Session 9, device call C: v9b (bwd_grad: v_new, gate and beta loads in flight together; dq, dk
# staged in smem and written as 16-byte row pieces; the working tree in .carry/bin) against v9a
# (.carry/before/libkda-v9a.so, commit 5962e97): every output bit the same (expected), time;
# .carry/exp/libkda-v9b-g16.so (v9b with the g form on the 16-warp grid too) against v9b;
# GPU tests of v9b; compute-sanitizer on m2 for v9b and v9a (the 16-warp raw form is new).
set -u
. scripts/device-env.sh
A9=.carry/before/libkda-v9a.so
G16=.carry/exp/libkda-v9b-g16.so
kb="$bin/kda-bench --log-level warn"
timeout 80 $kb --before $A9 --same-bits --no-timing --ops fwd,bwd --decay normal,fast \
  --check-heads 0 --rows 'ragged:*:*:*,m2:*:*:*,R2:*:*:saved' \
  --out "$out/samebits.json" > "$out/samebits.log" 2>&1
echo "same-bits v9b vs v9a exit $?: $(grep -c DIFFERENT "$out/samebits.log") DIFFERENT, $(grep -c identical "$out/samebits.log") identical"
timeout 100 $kb --rows '4doc:g:off:replay,4doc:raw:fused:saved,1doc:g:fused:saved,4doc:raw:off:saved' --ops bwd \
  --before $A9 --out "$out/ab-v9b.json" > "$out/ab-v9b.log" 2>&1
echo "A/B v9b vs v9a exit $?"
grep -E "^\|" "$out/ab-v9b.log" | grep -vE "^\| *(---|row)" | head -8
timeout 50 $kb --library $G16 --rows '4doc:g:off:saved,1doc:g:fused:saved' --ops bwd \
  --before $bin/libkda.so --out "$out/ab-g16.json" > "$out/ab-g16.log" 2>&1
echo "A/B g16 vs v9b exit $?"
grep -E "^\|" "$out/ab-g16.log" | grep -vE "^\| *(---|row)" | head -4
timeout 30 $bin/gpu_fwd_tests > "$out/gpu_fwd_tests.log" 2>&1
echo "gpu_fwd_tests exit $?: $(grep -E '^\[  (PASSED|FAILED) ' "$out/gpu_fwd_tests.log" | tr '\n' ' ' | cut -c1-60)"
timeout 110 $bin/gpu_bwd_tests > "$out/gpu_bwd_tests.log" 2>&1
echo "gpu_bwd_tests exit $?: $(grep -E '^\[  (PASSED|FAILED) ' "$out/gpu_bwd_tests.log" | tr '\n' ' ' | cut -c1-60)"
grep -E "^\[  FAILED  \] [a-z]" "$out/gpu_bwd_tests.log" | sed 's/,.*//' | sort -u | head -8
timeout 45 compute-sanitizer --tool memcheck $bin/gpu_bwd_tests \
  --gtest_filter='*m2_all_heads/raw_fused_replay_fast:*m2_all_heads/g_off_saved_normal' > "$out/memcheck.log" 2>&1
echo "memcheck v9b exit $?: $(tail -1 "$out/memcheck.log")"
timeout 45 compute-sanitizer --tool racecheck $bin/gpu_bwd_tests \
  --gtest_filter='*m2_all_heads/raw_fused_saved_normal' > "$out/racecheck.log" 2>&1
echo "racecheck v9b raw exit $?: $(tail -1 "$out/racecheck.log")"
timeout 45 compute-sanitizer --tool racecheck $bin/gpu_bwd_tests \
  --gtest_filter='*m2_all_heads/g_off_saved_normal' > "$out/racecheck-g.log" 2>&1
echo "racecheck v9b g exit $?: $(tail -1 "$out/racecheck-g.log")"
KDA_LIBRARY=$A9 timeout 45 compute-sanitizer --tool racecheck $bin/gpu_bwd_tests \
  --gtest_filter='*m2_all_heads/raw_fused_saved_normal' > "$out/racecheck-v9a.log" 2>&1
echo "racecheck v9a raw exit $?: $(tail -1 "$out/racecheck-v9a.log")"
tar -C "$out" -czf "$out/call-c-logs.tgz" $(cd "$out" && ls *.log *.json) && (cd "$out" && rm -f *.log *.json)
