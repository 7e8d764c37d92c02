#!/usr/bin/env bash
# Session 14, device call A.
#   .carry/bin/libkda.so            HEAD (042880a: v21 + the graph-capture order, host-only changes
#                                   not yet run on a GPU)
#   .carry/bin/libkda-v22.so        HEAD + docs/wip/v22-state-pass-wgmma.patch (KDA_STATE_WG=1
#                                   selects the wgmma state pass; never run before)
#   .carry/bin/wgmma_probe          docs/analysis/wgmma_probe.cu
# 1. the wgmma probe (descriptors, bits against mma.sync); 2. HEAD's graph path and GPU tests;
# 3. v22: same bits against HEAD, else the FP64 check; GPU tests; sanitizers; A/B --stages.
set -u
. scripts/device-env.sh
HEAD=$bin/libkda.so
kb="$bin/kda-bench --log-level warn"
timeout 60 $bin/wgmma_probe > "$out/probe.log" 2>&1; echo "probe exit $?"; cat "$out/probe.log"

timeout 120 $kb --rows 'R2:g:off:saved,R2:raw:fused:replay,m2:g:off:saved' --ops fwd,fwd+bwd --graph --check --samples 5 \
  --out "$out/graph.json" > "$out/graph.log" 2>&1
echo "graph --check exit $?"; grep -E "FAIL|error|exceed" "$out/graph.log" | head -5
timeout 120 $bin/gpu_timing_tests > "$out/gpu_timing_tests.log" 2>&1
echo "gpu_timing_tests exit $?: $(grep -E '^\[  (PASSED|FAILED) +\] [0-9]' "$out/gpu_timing_tests.log" | tr '\n' ' ')"
gpu_tests head

export KDA_STATE_WG=1
LIB=$bin/libkda-v22.so
export LIB
same_bits v22 "" 'm2:*:*:*,R2:*:*:*,ragged:*:*:*'
grep -E "DIFFERENT" "$out/sb-v22.log" | head -5
timeout 200 $kb --library $LIB --rows 'm2:*:*:*,R2:*:*:*,ragged:*:*:*' --ops fwd,bwd --check --repeat-check 2 --no-timing \
  --out "$out/check-v22.json" > "$out/check-v22.log" 2>&1
echo "v22 FP64 check exit $?"; grep -E "FAIL|error|differ" "$out/check-v22.log" | head -8
gpu_tests v22 $LIB
sanitize 64 memcheck racecheck
timeout 150 $kb --library $LIB --before $HEAD --rows 'R2:g:off:saved,R2:raw:fused:replay,m2:g:off:saved,1doc:g:off:saved' \
  --ops fwd --stages --out "$out/ab-v22.json" > "$out/ab-v22.log" 2>&1
echo "A/B v22 exit $?"
grep -E "^\|" "$out/ab-v22.log" | grep -E "\| (fwd|fwd/fwd_state|fwd/fwd_intra) \|"
tar -C "$out" -czf "$out/call-a-logs.tgz" $(cd "$out" && ls *.log *.json) && (cd "$out" && rm -f *.log *.json)
