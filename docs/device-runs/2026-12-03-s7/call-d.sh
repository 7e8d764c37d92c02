#!/usr/bin/env bash
# Session 7, device call D (calls B and C could not get a machine; device time left for one call):
#   1. v7c (.carry/v7c: bulk copies in the 16-column serial passes) against v7b (.carry/bin):
#      every output bit of all m2/R2 keys, the determinism GPU tests; if they hold, v7c is the
#      build of the rest of the call.
#   2. The 32-key matrix on that build: m2/R2 (all heads, both decays), then 1doc/4doc (1 sampled
#      head), fwd/bwd/fwd+bwd timed, FP64 check, bitwise repeat; the baseline's big keys first.
#      Finished rows stay in <out>.partial.json if the time runs out.
#   3. synccheck and racecheck on one m2 case, if time is left.
set -u
. scripts/device-env.sh
kb="$bin/kda-bench --log-level warn"
v7c=.carry/v7c/libkda.so
slug=$($bin/kda-bench nightly --print-slug)
res="$out/results/$slug"; mkdir -p "$res"
timeout 60 $kb --library $v7c --before $bin/libkda.so --same-bits --no-timing --ops fwd,bwd \
  --check-heads 0 --rows 'm2:*:*:*,R2:*:*:*' --out /tmp/sb.json > "$out/samebits-v7c-v7b.log" 2>&1
sb=$?
echo "same-bits v7c vs v7b exit $sb: $(grep -c DIFFERENT "$out/samebits-v7c-v7b.log") DIFFERENT, $(grep -c identical "$out/samebits-v7c-v7b.log") identical"
KDA_LIBRARY=$v7c timeout 30 $bin/gpu_fwd_tests --gtest_filter='fwd_determinism.*' > "$out/v7c-gpu_fwd_tests.log" 2>&1
t1=$?
KDA_LIBRARY=$v7c timeout 30 $bin/gpu_bwd_tests --gtest_filter='bwd_determinism.*' > "$out/v7c-gpu_bwd_tests.log" 2>&1
t2=$?
echo "v7c determinism tests exit $t1 $t2: $(grep -hE '^\[  (PASSED|FAILED) ' "$out"/v7c-gpu_*_tests.log | tr '\n' ' ')"
if [ $sb = 0 ] && [ $t1 = 0 ] && [ $t2 = 0 ]; then cp $v7c $bin/libkda.so && echo "matrix on v7c"; else echo "matrix on v7b"; fi
m="--ops fwd,bwd,fwd+bwd --check --repeat-check 2 --force"
timeout 100 $kb $m --rows 'm2:*:*:*,R2:*:*:*' --out "$res/matrix-small.json" > "$out/matrix-small.log" 2>&1
echo "small rows exit $?"
left=$((555 - SECONDS - 70))
timeout $left $kb $m --check-heads 1 \
  --rows '1doc:g:fused:saved,4doc:raw:off:saved,4doc:raw:fused:saved,4doc:g:off:replay,1doc:g:off:*,1doc:g:fused:replay,1doc:raw:*:*,4doc:g:off:saved,4doc:g:fused:*,4doc:raw:off:replay,4doc:raw:fused:replay' \
  --out "$res/matrix-big.json" > "$out/matrix-big.log" 2>&1
echo "big rows exit $? (limit $left s)"
grep -hE " median " "$out/matrix-small.log" "$out/matrix-big.log" | cut -c1-60
grep -hE "DIFFERENT| FAIL" "$out/matrix-small.log" "$out/matrix-big.log" | cut -c1-100 | sort | uniq -c | head -20
left=$((560 - SECONDS))
if [ $left -gt 40 ]; then
  timeout $((left - 10)) compute-sanitizer --tool synccheck $bin/gpu_bwd_tests \
    --gtest_filter='*m2_all_heads/g_off_replay_fast' > "$out/synccheck.log" 2>&1
  echo "synccheck exit $?: $(tail -1 "$out/synccheck.log")"
fi
tar -C "$out" -czf "$out/call-d-logs.tgz" $(cd "$out" && ls *.log) && (cd "$out" && rm -f *.log)
