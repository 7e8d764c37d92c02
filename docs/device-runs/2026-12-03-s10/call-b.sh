#!/usr/bin/env bash
# Session 10, device call B: v10b (bwd_dh issues the dh terms that need no dv_new, qg hi + lo
# against do, before the barrier that publishes dv_new; the working tree, with v11) against v10a
# (call A's build: those terms after the barrier, interleaved with w^T (-dv_new)) and against v11
# alone (what qg's lo half costs); GPU tests of v10b; compute-sanitizer on m2 (16-column bwd_dh,
# whose buffers changed in v10, and the 64-column one through KDA_STATE_VTILE=64).
set -u
. scripts/device-env.sh
V10A=.carry/exp/libkda-v10a.so V11=.carry/exp/libkda-v11.so
kb="$bin/kda-bench --log-level warn"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$out/gpu.txt" 2>&1
for t in fwd bwd; do
  timeout 120 $bin/gpu_${t}_tests > "$out/gpu_${t}_tests.log" 2>&1
  echo "gpu_${t}_tests exit $?: $(grep -E '^\[  (PASSED|FAILED) ' "$out/gpu_${t}_tests.log" | tr '\n' ' ' | cut -c1-40)"
  grep -E "^\[  FAILED  \] [a-z]" "$out/gpu_${t}_tests.log" | sed 's/,.*//' | sort -u | head -8
done
rows='4doc:g:off:replay,4doc:raw:fused:saved,R2:g:off:saved,m2:g:fused:saved'
for b in v10a:$V10A v11:$V11; do
  timeout 120 $kb --rows "$rows" --ops bwd --stages --before ${b#*:} --out "$out/ab-${b%%:*}.json" > "$out/ab-${b%%:*}.log" 2>&1
  echo "A/B v10b vs ${b%%:*} exit $?"
  grep -E "^\|" "$out/ab-${b%%:*}.log" | grep -E "\| bwd \||bwd_dh" | head -8
done
timeout 60 compute-sanitizer --tool racecheck $bin/gpu_bwd_tests --gtest_filter='*m2_all_heads/raw_fused_saved_normal' \
  > "$out/racecheck-vt16.log" 2>&1
echo "racecheck vt16 exit $?: $(tail -1 "$out/racecheck-vt16.log")"
KDA_STATE_VTILE=64 timeout 60 compute-sanitizer --tool racecheck $bin/gpu_bwd_tests \
  --gtest_filter='*m2_all_heads/g_off_replay_normal' > "$out/racecheck-vt64.log" 2>&1
echo "racecheck vt64 exit $?: $(tail -1 "$out/racecheck-vt64.log")"
timeout 60 compute-sanitizer --tool memcheck $bin/gpu_bwd_tests \
  --gtest_filter='*m2_all_heads/raw_fused_replay_fast:*ragged*/g_off_saved_normal' > "$out/memcheck.log" 2>&1
echo "memcheck exit $?: $(tail -1 "$out/memcheck.log")"
timeout 60 compute-sanitizer --tool synccheck $bin/gpu_bwd_tests \
  --gtest_filter='*m2_all_heads/raw_fused_saved_normal:*m2_all_heads/g_off_replay_fast' > "$out/synccheck.log" 2>&1
echo "synccheck exit $?: $(tail -1 "$out/synccheck.log")"
tar -C "$out" -czf "$out/call-b-logs.tgz" $(cd "$out" && ls *.log *.json *.txt) && (cd "$out" && rm -f *.log *.json *.txt)
