#!/usr/bin/env bash
# Session 12, device call C: call B again after two fixes (the second box of a [64][128] tile went
# to the first box's place; mbarrier waits and arrivals at default semantics), now for both
# 16-column serial passes (fwd_state and bwd_dh): their shared tiles copied as whole [64][64] swizzled boxes by the copy engine (cp.async.bulk.tensor, common/tile_maps.cuh), from a
# producer warp, three chunks ahead:
#   .carry/bin/libkda.so            v18c8: boxes multicast to the 8 V-tile CTAs of a head (cluster of 8)
#   .carry/before/libkda-v18c1.so   v18c1: every CTA copies its own boxes (no cluster)
#   .carry/before/libkda-head.so    HEAD (v15)
set -u
. scripts/device-env.sh
HEAD=.carry/before/libkda-head.so
kb="$bin/kda-bench --log-level warn"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$out/gpu.txt" 2>&1
same_bits() { # NAME VTILE LIBRARY ROWS
  KDA_STATE_VTILE=$2 timeout 120 $kb --library $3 --before $HEAD --same-bits --no-timing --ops fwd,bwd \
    --decay normal,fast --check-heads 0 --rows "$4" --out "$out/sb-$1.json" > "$out/sb-$1.log" 2>&1
  echo "same-bits $1 exit $?: $(grep -c DIFFERENT "$out/sb-$1.log") DIFFERENT, $(grep -c identical "$out/sb-$1.log") identical"
}
same_bits v18c8 "" $bin/libkda.so 'm2:*:*:*,R2:*:*:*'
same_bits v18c8-vt16 16 $bin/libkda.so 'ragged:*:*:*'
same_bits v18c1 "" .carry/before/libkda-v18c1.so 'm2:*:*:*,R2:*:*:*'
gpu_tests v18c8
for tool in memcheck synccheck racecheck; do
  timeout 90 compute-sanitizer --tool $tool $bin/gpu_bwd_tests --gtest_filter="*m2_all_heads/g_off_saved_normal:*m2_all_heads/raw_fused_replay_fast" > "$out/$tool-v18c8.log" 2>&1
  echo "$tool v18c8 (m2 bwd, both paths) exit $?: $(tail -1 "$out/$tool-v18c8.log")"
done
for v in v18c1; do
  lib=.carry/before/libkda-$v.so
  timeout 100 $kb --rows 'R2:g:off:saved,R2:raw:fused:replay,m2:g:off:saved' --ops fwd,bwd --stages --library $lib \
    --before $HEAD --out "$out/ab-$v.json" > "$out/ab-$v.log" 2>&1
  echo "A/B $v vs HEAD exit $?"
  grep -E "^\|" "$out/ab-$v.log" | grep -E "\| (fwd|bwd|fwd/fwd_state|bwd/bwd_dh|bwd/bwd_state_replay) \|"
done
timeout 120 $kb --rows 'R2:g:off:saved,R2:raw:fused:replay,m2:g:off:saved' --ops fwd,bwd --stages \
  --before $HEAD --out "$out/ab-v18c8.json" > "$out/ab-v18c8.log" 2>&1
echo "A/B v18c8 vs HEAD exit $?"
grep -E "^\|" "$out/ab-v18c8.log" | grep -E "\| (fwd|bwd|fwd/fwd_state|bwd/bwd_state_replay|bwd/bwd_dh) \|"
ncu_kernel v18c8-r2 fwd_state_narrow R2:g:off:saved fwd
ncu_kernel v18c8-r2-dh bwd_dh_narrow R2:g:off:saved bwd
tar -C "$out" -czf "$out/call-c-logs.tgz" $(cd "$out" && ls *.log *.json *.txt) && (cd "$out" && rm -f *.log *.json *.txt)
