#!/usr/bin/env bash
# Session 14, device call B: v22b = v22 (call A: same bits as HEAD, but R2's fwd_state 0.128 ->
# 0.232 ms) with u read conflict-free from swizzled fp32 boxes, v_new stored through shared memory
# in 16-byte rows, and the o products (G2, G4) in their own wgmma groups, o leaving one chunk late.
#   .carry/bin/libkda.so        HEAD (042880a)
#   .carry/bin/libkda-v22b.so   v22b (KDA_STATE_WG=1 selects the wgmma state pass)
#   gpu_timing_tests            with the interleaving test on medians (call A: one stalled sample)
set -u
. scripts/device-env.sh
HEAD=$bin/libkda.so
kb="$bin/kda-bench --log-level warn"
timeout 120 $bin/gpu_timing_tests > "$out/gpu_timing_tests.log" 2>&1
echo "gpu_timing_tests exit $?: $(grep -E '^\[  (PASSED|FAILED) +\] [0-9]' "$out/gpu_timing_tests.log" | tr '\n' ' ')"
export KDA_STATE_WG=1 LIB=$bin/libkda-v22b.so
same_bits v22b "" 'm2:*:*:*,R2:*:*:*,ragged:*:*:*'
same_bits v22b-big "" '1doc:g:off:saved,4doc:raw:fused:replay'
grep -E "DIFFERENT" "$out/sb-v22b.log" "$out/sb-v22b-big.log" | head -5
gpu_tests v22b $LIB
sanitize 64 memcheck racecheck
timeout 150 $kb --library $LIB --before $HEAD --rows 'R2:g:off:saved,R2:raw:fused:replay,m2:g:off:saved,1doc:g:off:saved' \
  --ops fwd,fwd+bwd --stages --out "$out/ab-v22b.json" > "$out/ab-v22b.log" 2>&1
echo "A/B v22b exit $?"
grep -E "^\|" "$out/ab-v22b.log" | grep -E "\| (fwd|fwd\+bwd|fwd/fwd_state|fwd/fwd_intra) \|"
ncu_kernel v22b-r2 fwd_state_wg 'R2:g:off:saved' fwd
tar -C "$out" -czf "$out/call-b-logs.tgz" $(cd "$out" && ls *.log *.json *.csv) && (cd "$out" && rm -f *.log *.json *.csv)
