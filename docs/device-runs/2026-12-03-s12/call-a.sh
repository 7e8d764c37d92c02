#!/usr/bin/env bash
# Session 12, device call A.
#   .carry/bin/libkda.so          v17: the 16-column serial passes (fwd_state, bwd_dh) on clusters of
#                                 the 8 V-tile CTAs of a head, the shared tiles multicast by a
#                                 producer warp (common/cluster_copies.cuh)
#   .carry/before/libkda-head.so  HEAD (v15, commit 8e65715)
#   .carry/before/libkda-v16.so   HEAD + docs/wip/v16-vn-planes.patch
# Bits, GPU tests, sanitizers, then A/B times; v17 first, v16 after it.
set -u
. scripts/device-env.sh
HEAD=.carry/before/libkda-head.so V16=.carry/before/libkda-v16.so
kb="$bin/kda-bench --log-level warn"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$out/gpu.txt" 2>&1
same_bits() { # NAME VTILE LIBRARY ROWS
  KDA_STATE_VTILE=$2 timeout 120 $kb --library $3 --before $HEAD --same-bits --no-timing --ops fwd,bwd \
    --decay normal,fast --check-heads 0 --rows "$4" --out "$out/sb-$1.json" > "$out/sb-$1.log" 2>&1
  echo "same-bits $1 exit $?: $(grep -c DIFFERENT "$out/sb-$1.log") DIFFERENT, $(grep -c identical "$out/sb-$1.log") identical"
}
# v17: m2 and R2 take the 16-column passes of themselves; ragged only when told (KDA_STATE_VTILE=16)
same_bits v17-own "" $bin/libkda.so 'm2:*:*:*,R2:*:*:*'
same_bits v17-vt16 16 $bin/libkda.so 'ragged:*:*:*'
gpu_tests v17
KDA_STATE_VTILE=16 timeout 150 $bin/gpu_bwd_tests --gtest_filter='*ragged*:*determinism*:*vtile*' > "$out/gpu_bwd_tests-v17-vt16.log" 2>&1
echo "gpu_bwd_tests v17 vt16 (ragged, determinism) exit $?: $(grep -E '^\[  (PASSED|FAILED) +\] [0-9]' "$out/gpu_bwd_tests-v17-vt16.log" | tr '\n' ' ')"
for tool in racecheck memcheck synccheck; do
  timeout 90 compute-sanitizer --tool $tool $bin/gpu_bwd_tests --gtest_filter='*m2_all_heads/g_off_saved_normal' \
    > "$out/$tool-v17.log" 2>&1
  echo "$tool v17 (m2 bwd saved: fwd_state + bwd_dh 16-column) exit $?: $(tail -1 "$out/$tool-v17.log")"
done
timeout 150 $kb --rows 'R2:g:off:saved,R2:raw:fused:replay,m2:g:off:saved,m2:raw:fused:replay' --ops fwd,bwd,fwd+bwd \
  --stages --before $HEAD --out "$out/ab-v17.json" > "$out/ab-v17.log" 2>&1
echo "A/B v17 vs HEAD exit $?"
grep -E "^\|" "$out/ab-v17.log" | grep -E "\| (fwd|bwd|fwd\+bwd|fwd/fwd_state|bwd/bwd_dh|bwd/bwd_state_replay) \|"
# v16
for vt in "" 32 64; do same_bits v16-vt${vt:-own} "$vt" $V16 'ragged:*:*:*,m2:*:*:*'; done
gpu_tests v16 $V16
timeout 200 $kb --library $V16 --rows '4doc:g:off:replay,4doc:raw:fused:saved' --ops fwd,bwd --stages --before $HEAD \
  --out "$out/ab-v16.json" > "$out/ab-v16.log" 2>&1
echo "A/B v16 vs HEAD exit $?"
grep -E "^\|" "$out/ab-v16.log" | grep -E "\| (fwd|bwd|fwd/fwd_state|bwd/bwd_grad|bwd/bwd_state_replay) \|"
tar -C "$out" -czf "$out/call-a-logs.tgz" $(cd "$out" && ls *.log *.json *.txt) && (cd "$out" && rm -f *.log *.json *.txt)
