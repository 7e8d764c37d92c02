#!/usr/bin/env bash
# Session 7, device call A: the cut-off session 6's three commits (never logged) and v7 (V tiles
# of 16 columns in the serial passes; v7a: warps split by role inside the step, v7b: warp-
# specialised chain / output warps, the working tree in .carry/bin).
#   copies (f3497a2) vs v6 (6b9c025): every output bit the same (--same-bits).
#   v7b vs head (2bbe69d, stage-4 split): every output bit the same (v7a too if v7b differs).
#   v7b: GPU tests; FP64 check of every m2/R2 key at both decays with a bitwise repeat; timing
#   against head and v7a (R2, m2) and against v6 (1doc, 4doc: copies + split); sanitizers on m2
#   (the 16-column kernels run there); Nsight Compute on R2's serial passes.
set -u
. scripts/device-env.sh
B=.carry/before
kb="$bin/kda-bench --log-level warn"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$out/gpu.txt" 2>&1
sb() { # name new old rows
  timeout 100 $kb --library "$2" --before "$3" --same-bits --no-timing --ops fwd,bwd --decay normal,fast \
    --check-heads 0 --rows "$4" --out "$out/samebits-$1.json" > "$out/samebits-$1.log" 2>&1
  local rc=$?
  echo "same-bits $1 exit $rc: $(grep -c DIFFERENT "$out/samebits-$1.log") DIFFERENT, $(grep -c identical "$out/samebits-$1.log") identical"
  return $rc
}
sb copies-v6 $B/libkda-copies.so $B/libkda-v6.so 'ragged:*:*:saved,m2:*:*:replay,R2:g:off:saved,R2:raw:fused:saved'
sb v7b-head $bin/libkda.so $B/libkda-head.so 'ragged:*:*:saved,m2:*:*:*,R2:*:*:saved' \
  || sb v7a-head $B/libkda-v7a.so $B/libkda-head.so 'm2:*:*:*,R2:g:off:saved'
timeout 60 $bin/gpu_fwd_tests > "$out/gpu_fwd_tests.log" 2>&1
echo "gpu_fwd_tests exit $?: $(grep -E '^\[  (PASSED|FAILED) ' "$out/gpu_fwd_tests.log" | tr '\n' ' ')"
timeout 90 $bin/gpu_bwd_tests > "$out/gpu_bwd_tests.log" 2>&1
echo "gpu_bwd_tests exit $?: $(grep -E '^\[  (PASSED|FAILED) ' "$out/gpu_bwd_tests.log" | tr '\n' ' ')"
grep -E "^\[  FAILED  \] [a-z]" "$out/gpu_bwd_tests.log" | sed 's/,.*//' | sort -u | head -20
timeout 130 $kb --no-timing --check --repeat-check 2 --ops fwd,bwd --rows 'm2:*:*:*,R2:*:*:*' \
  --out "$out/check-small.json" > "$out/check-small.log" 2>&1
echo "check m2/R2 exit $?: $(grep -cE ' FAIL' "$out/check-small.log") FAIL lines, $(grep -c DIFFERENT "$out/check-small.log") DIFFERENT"
grep -E " FAIL" "$out/check-small.log" | head -12
timeout 60 $kb --rows 'R2:g:off:saved,R2:raw:fused:replay,m2:g:off:saved' --ops fwd,bwd,fwd+bwd --stages \
  --before $B/libkda-head.so --out "$out/ab-small.json" > "$out/ab-small.log" 2>&1
echo "A/B small vs head exit $?"
grep -E "^\|" "$out/ab-small.log" | grep -vE "^\| *(---|row)" | head -40
timeout 30 $kb --rows 'R2:g:off:saved' --ops fwd,bwd --stages --before $B/libkda-v7a.so \
  --out "$out/ab-v7a.json" > "$out/ab-v7a.log" 2>&1
echo "A/B R2 vs v7a exit $?"
grep -E "^\|" "$out/ab-v7a.log" | grep -vE "^\| *(---|row)" | head -12
timeout 90 $kb --rows '4doc:raw:off:saved,1doc:g:fused:saved' --ops fwd,bwd --stages \
  --before $B/libkda-v6.so --out "$out/ab-big.json" > "$out/ab-big.log" 2>&1
echo "A/B big vs v6 exit $?"
grep -E "^\|" "$out/ab-big.log" | grep -vE "^\| *(---|row)" | head -30
timeout 50 compute-sanitizer --tool memcheck $bin/gpu_bwd_tests \
  --gtest_filter='*m2_all_heads/raw_fused_replay_fast:bwd_determinism.same_bits_for_every_state_vtile' > "$out/memcheck.log" 2>&1
echo "memcheck exit $?: $(tail -1 "$out/memcheck.log")"
timeout 50 compute-sanitizer --tool racecheck $bin/gpu_bwd_tests \
  --gtest_filter='*m2_all_heads/raw_fused_saved_normal' > "$out/racecheck.log" 2>&1
echo "racecheck exit $?: $(tail -1 "$out/racecheck.log")"
timeout 40 compute-sanitizer --tool synccheck $bin/gpu_bwd_tests \
  --gtest_filter='*m2_all_heads/g_off_replay_fast' > "$out/synccheck.log" 2>&1
echo "synccheck exit $?: $(tail -1 "$out/synccheck.log")"
timeout 50 ncu --clock-control none --kernel-name regex:'fwd_state|bwd_dh' --launch-count 2 --section SpeedOfLight \
  --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --print-details all \
  $bin/kda-bench --rows R2:g:off:saved --ops fwd,bwd --samples 1 --calls 1 --warmup 0 --out /tmp/p.json --force \
  --log-level warn > "$out/ncu-r2.txt" 2>&1
echo "ncu exit $?"
grep -E "(fwd_state|bwd_dh)[a-z_]*\(|Duration|Warp Cycles Per Issued|Issued Warp Per|Stall (Short|Wait|Long|Barrier|MIO)" "$out/ncu-r2.txt" | head -24
tar -C "$out" -czf "$out/call-a-logs.tgz" $(cd "$out" && ls *.log *.json *.txt) && (cd "$out" && rm -f *.log *.json *.txt)
