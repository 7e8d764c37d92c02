#!/usr/bin/env bash
# Session 11, device call F: v15, the 32/64-column state pass without o (bwd_state_replay) skips
# qg h, Aqk v_new and the loads of qg and Aqk (it computed o and dropped it; the 16-column form
# already skipped them). Expected: the same bits (h, v_new and everything after them unchanged),
# bwd_state_replay -15 to -25 % on 1doc/4doc replay keys.
#   .carry/bin/libkda.so          v15 (v14 + this)
#   .carry/before/libkda-v14.so   v14 (commit c18d14a, call E's build)
# m2 and ragged take the 16-column form by default: KDA_STATE_VTILE=32 / 64 sends them through the
# changed kernels for the bits, the GPU tests and compute-sanitizer.
set -u
. scripts/device-env.sh
V14=.carry/before/libkda-v14.so
kb="$bin/kda-bench --log-level warn"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$out/gpu.txt" 2>&1
for vt in 32 64; do
  KDA_STATE_VTILE=$vt timeout 60 $kb --before $V14 --same-bits --no-timing --ops fwd,bwd --decay normal,fast \
    --check-heads 0 --rows 'ragged:*:*:*,m2:*:*:*' --out "$out/samebits-vt$vt.json" > "$out/samebits-vt$vt.log" 2>&1
  echo "same-bits v15 vs v14 (vt $vt) exit $?: $(grep -c DIFFERENT "$out/samebits-vt$vt.log") DIFFERENT, $(grep -c identical "$out/samebits-vt$vt.log") identical"
done
KDA_STATE_VTILE=64 gpu_tests vt64
KDA_STATE_VTILE=32 timeout 120 $bin/gpu_bwd_tests > "$out/gpu_bwd_tests-vt32.log" 2>&1
echo "gpu_bwd_tests vt32 exit $?: $(grep -E '^\[  (PASSED|FAILED) +\] [0-9]' "$out/gpu_bwd_tests-vt32.log" | tr '\n' ' ')"
KDA_STATE_VTILE=64 timeout 60 compute-sanitizer --tool racecheck $bin/gpu_bwd_tests \
  --gtest_filter='*m2_all_heads/g_off_replay_normal' > "$out/racecheck-vt64.log" 2>&1
echo "racecheck vt64 exit $?: $(tail -1 "$out/racecheck-vt64.log")"
KDA_STATE_VTILE=32 timeout 60 compute-sanitizer --tool memcheck $bin/gpu_bwd_tests \
  --gtest_filter='*ragged*/raw_fused_replay_fast' > "$out/memcheck-vt32.log" 2>&1
echo "memcheck vt32 exit $?: $(tail -1 "$out/memcheck-vt32.log")"
timeout 200 $kb --rows '4doc:g:off:replay,1doc:raw:fused:replay,4doc:raw:off:replay' --ops fwd,bwd,fwd+bwd --stages \
  --before $V14 --out "$out/ab-v15-vs-v14.json" > "$out/ab-v15-vs-v14.log" 2>&1
echo "A/B v15 vs v14 exit $?"
grep -E "^\|" "$out/ab-v15-vs-v14.log" | grep -E "\| (fwd|bwd|fwd\+bwd|bwd/bwd_state_replay|fwd/fwd_state) \|" | head -24
tar -C "$out" -czf "$out/call-f-logs.tgz" $(cd "$out" && ls *.log *.json *.txt) && (cd "$out" && rm -f *.log *.json *.txt)
