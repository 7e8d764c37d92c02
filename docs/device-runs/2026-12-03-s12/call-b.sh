#!/usr/bin/env bash
# Session 12, device call B: the 16-column forward state pass with its shared tiles copied as whole
# [64][64] swizzled boxes by the copy engine (cp.async.bulk.tensor, common/tile_maps.cuh), from a
# producer warp, three chunks ahead:
#   .carry/bin/libkda.so            v18c8: boxes multicast to the 8 V-tile CTAs of a head (cluster of 8)
#   .carry/before/libkda-v18c1.so   v18c1: every CTA copies its own boxes (no cluster)
#   .carry/before/libkda-v17s3.so   v17 with three stages (per-row multicast bulk copies)
#   .carry/before/libkda-head.so    HEAD (v15)
# (bwd_dh's 16-column pass is v17's in all three: per-row multicast.)
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
timeout 120 $bin/gpu_fwd_tests > "$out/gpu_fwd_tests-v18c8.log" 2>&1
echo "gpu_fwd_tests v18c8 exit $?: $(grep -E '^\[  (PASSED|FAILED) +\] [0-9]' "$out/gpu_fwd_tests-v18c8.log" | tr '\n' ' ')"
for tool in memcheck synccheck; do
  timeout 90 compute-sanitizer --tool $tool $bin/gpu_fwd_tests --gtest_filter='*m2*' > "$out/$tool-v18c8.log" 2>&1
  echo "$tool v18c8 (fwd m2) exit $?: $(tail -1 "$out/$tool-v18c8.log")"
done
for v in v18c1 v17s3 head; do
  lib=$bin/libkda.so; [ $v = head ] || lib=.carry/before/libkda-$v.so
  [ $v = head ] && continue
  timeout 100 $kb --rows 'R2:g:off:saved,R2:raw:fused:replay,m2:g:off:saved' --ops fwd --stages --library $lib \
    --before $HEAD --out "$out/ab-$v.json" > "$out/ab-$v.log" 2>&1
  echo "A/B $v vs HEAD exit $?"
  grep -E "^\|" "$out/ab-$v.log" | grep -E "\| (fwd|fwd/fwd_state) \|"
done
timeout 120 $kb --rows 'R2:g:off:saved,R2:raw:fused:replay,m2:g:off:saved' --ops fwd,bwd --stages \
  --before $HEAD --out "$out/ab-v18c8.json" > "$out/ab-v18c8.log" 2>&1
echo "A/B v18c8 vs HEAD exit $?"
grep -E "^\|" "$out/ab-v18c8.log" | grep -E "\| (fwd|bwd|fwd/fwd_state|bwd/bwd_state_replay|bwd/bwd_dh) \|"
ncu_kernel v18c8-r2 fwd_state_narrow R2:g:off:saved fwd
tar -C "$out" -czf "$out/call-b-logs.tgz" $(cd "$out" && ls *.log *.json *.txt) && (cd "$out" && rm -f *.log *.json *.txt)
