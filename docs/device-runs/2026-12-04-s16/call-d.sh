#!/usr/bin/env bash
# Session 16, device call D: v23f (v23d + the intra stage's flag published with fence.acq_rel.gpu
# and a relaxed store instead of __threadfence() and st.release): its forward against v23d, then
# the checks of the build to land against the base (30a5991, v22).
set -u
. scripts/device-env.sh
HEAD=$bin/libkda-base.so
kb="$bin/kda-bench --log-level warn"
export LIB=$bin/libkda-v23f.so
timeout 200 $kb --library $LIB --before $bin/libkda-v23d.so --rows 'R2:g:off:saved,R2:raw:fused:replay,m2:g:off:saved,4doc:g:off:replay' \
  --ops fwd --stages --out "$out/fwd-f-vs-d.json" > "$out/fwd-f-vs-d.log" 2>&1
echo "fwd f vs d exit $?"; grep -E "^\| [0-9A-Za-z]+:" "$out/fwd-f-vs-d.log"
same_bits own "" 'm2:*:*:*,R2:*:*:*,ragged:*:*:*'
same_bits vt64 64 'm2:*:*:*,ragged:*:*:*'
gpu_tests v23f $LIB
KDA_STATE_VTILE=64 gpu_tests v23f-vt64 $LIB
sanitize 16
sanitize 64 racecheck synccheck
KDA_LIBRARY=$LIB timeout 120 $bin/gpu_timing_tests > "$out/gpu_timing_tests.log" 2>&1
echo "gpu_timing_tests exit $?: $(grep -E '^\[  (PASSED|FAILED) +\] [0-9]' "$out/gpu_timing_tests.log" | tr '\n' ' ')"
timeout 200 $kb --library $LIB --rows 'R2:*:*:*,m2:*:*:*' --ops bwd --check --repeat-check 3 --no-timing \
  --out "$out/check.json" > "$out/check.log" 2>&1
echo "check+repeat exit $?"; grep -E "FAIL|differ" "$out/check.log" | head -12; grep -c identical "$out/check.log"
timeout 120 $kb --library $LIB --rows 'R2:g:off:saved,m2:g:off:replay' --ops fwd+bwd --graph --check --samples 5 \
  --out "$out/graph.json" > "$out/graph.log" 2>&1
echo "graph+check exit $?"; grep -E "FAIL|^\| [0-9A-Za-z]+:" "$out/graph.log" | head -6
timeout 280 $kb --library $LIB --before $HEAD --rows '1doc:g:fused:saved,4doc:g:off:replay,1doc:raw:fused:replay,R2:g:off:saved,R2:raw:fused:replay' \
  --ops fwd,bwd,fwd+bwd --out "$out/ab.json" > "$out/ab.log" 2>&1
echo "A/B exit $?"; grep -E "^\| [0-9A-Za-z]+:" "$out/ab.log"
tar -C "$out" -czf "$out/call-d-logs.tgz" $(cd "$out" && ls *.log *.json) && (cd "$out" && rm -f *.log *.json)
