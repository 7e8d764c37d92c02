#!/usr/bin/env bash
# Session 7, device call B.
#   1. v7c (bulk copies on mbarriers in the 16-column serial passes, .carry/v7c) against v7b
#      (.carry/bin): every output bit the same on all m2/R2 keys, the determinism GPU tests,
#      racecheck/synccheck on one m2 case, timing with stages. If its bits and tests hold, v7c
#      replaces v7b for the rest of this call.
#   2. The new nightly baseline (scripts/device-baseline.sh: 9 keys, fwd/bwd/fwd+bwd, check on 2
#      heads of the big rows, all of m2/R2, repeat 2), then the other 11 small-row keys of the
#      32-key matrix (call C runs the other 12 big-row keys; they never run 16-column tiles).
set -u
. scripts/device-env.sh
kb="$bin/kda-bench --log-level warn"
v7c=.carry/v7c/libkda.so
timeout 100 $kb --library $v7c --before $bin/libkda.so --same-bits --no-timing --ops fwd,bwd \
  --check-heads 0 --rows 'm2:*:*:*,R2:*:*:*' --out /tmp/sb.json > "$out/samebits-v7c-v7b.log" 2>&1
sb=$?
echo "same-bits v7c vs v7b exit $sb: $(grep -c DIFFERENT "$out/samebits-v7c-v7b.log") DIFFERENT, $(grep -c identical "$out/samebits-v7c-v7b.log") identical"
KDA_LIBRARY=$v7c timeout 40 $bin/gpu_fwd_tests --gtest_filter='fwd_determinism.*:*m2_all_heads/raw_fused_fast' > "$out/v7c-gpu_fwd_tests.log" 2>&1
t1=$?
KDA_LIBRARY=$v7c timeout 40 $bin/gpu_bwd_tests --gtest_filter='bwd_determinism.*' > "$out/v7c-gpu_bwd_tests.log" 2>&1
t2=$?
echo "v7c gpu tests exit $t1 $t2: $(grep -hE '^\[  (PASSED|FAILED) ' "$out"/v7c-gpu_*_tests.log | tr '\n' ' ')"
KDA_LIBRARY=$v7c timeout 45 compute-sanitizer --tool racecheck $bin/gpu_bwd_tests \
  --gtest_filter='*m2_all_heads/raw_fused_saved_normal' > "$out/v7c-racecheck.log" 2>&1
echo "v7c racecheck exit $?: $(tail -1 "$out/v7c-racecheck.log")"
KDA_LIBRARY=$v7c timeout 45 compute-sanitizer --tool synccheck $bin/gpu_bwd_tests \
  --gtest_filter='*m2_all_heads/g_off_replay_fast:bwd_determinism.same_bits_for_every_state_vtile' > "$out/v7c-synccheck.log" 2>&1
echo "v7c synccheck exit $?: $(tail -1 "$out/v7c-synccheck.log")"
KDA_LIBRARY=$v7c timeout 45 compute-sanitizer --tool memcheck $bin/gpu_bwd_tests \
  --gtest_filter='*m2_all_heads/raw_off_replay_fast' > "$out/v7c-memcheck.log" 2>&1
echo "v7c memcheck exit $?: $(tail -1 "$out/v7c-memcheck.log")"
timeout 60 $kb --library $v7c --before $bin/libkda.so --rows 'R2:g:off:saved,R2:raw:fused:replay,m2:g:off:saved' \
  --ops fwd,bwd,fwd+bwd --stages --out "$out/ab-v7c.json" > "$out/ab-v7c.log" 2>&1
echo "A/B v7c vs v7b exit $?"
grep -E "^\|" "$out/ab-v7c.log" | grep -E "\| (fwd|bwd|fwd\+bwd|fwd/fwd_state|bwd/bwd_dh|bwd/bwd_state_replay) \|"
if [ $sb = 0 ] && [ $t1 = 0 ] && [ $t2 = 0 ] && grep -q "0 hazards" "$out/v7c-racecheck.log" \
   && grep -q "ERROR SUMMARY: 0 errors" "$out/v7c-synccheck.log"; then
  cp $v7c $bin/libkda.so && touch /tmp/kda-v7c-ok && echo "v7c takes over"
fi
BASELINE_TIMEOUT=280 scripts/device-baseline.sh
slug=$($bin/kda-bench nightly --print-slug)
timeout 110 $kb --ops fwd,bwd,fwd+bwd --check --repeat-check 2 --force \
  --rows 'm2:*:*:replay,R2:g:off:replay,R2:g:fused:*,R2:raw:*:*' \
  --out "$out/results/$slug/matrix-small-rest.json" > "$out/matrix-small-rest.log" 2>&1
echo "small rest exit $?"
grep -hE "(fwd|bwd|fwd\+bwd) +median|DIFFERENT| FAIL" "$out/matrix-small-rest.log" | cut -c1-90
tar -C "$out" -czf "$out/call-b-logs.tgz" $(cd "$out" && ls *.log *.json) && (cd "$out" && rm -f *.log *.json)
