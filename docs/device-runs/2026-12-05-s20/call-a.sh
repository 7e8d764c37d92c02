#!/usr/bin/env bash
# Session 20, device call A. The carried libkda.so: v35, the 16-column bwd_dh with two V tiles a
# CTA (48 CTAs on R2 instead of 96) and one output warp a tile; v36, the 16-column state pass
# with two V tiles a CTA (output warps release their stage by mbarrier arrivals; two output
# stages). KDA_DH_NARROW_TILES=1 / KDA_STATE_NARROW_TILES=1: the same kernels with one V tile a
# CTA. Against the session's start (libkda-head.so, 288dfaa): bits, GPU tests, sanitizers, A/B.
set -u
. scripts/device-env.sh
HEAD=$bin/libkda-head.so
export LIB=$bin/libkda.so
check_build v35 16
KDA_LIBRARY=$LIB timeout 120 $bin/gpu_timing_tests > "$out/gpu_timing_tests.log" 2>&1
echo "gpu_timing_tests exit $?: $(grep -E '^\[  (PASSED|FAILED) +\] [0-9]' "$out/gpu_timing_tests.log" | tr '\n' ' ')"
KDA_DH_NARROW_TILES=1 KDA_STATE_NARROW_TILES=1 same_bits nt1 "" 'm2:*:*:*,R2:*:*:*'
sanitize 16
AB_SHOW='fwd|bwd|fwd_state|fwd_output|bwd_dh|bwd_grad|bwd_state_replay' ab v35 $LIB $HEAD 300 \
  'R2:*:*:saved,m2:*:*:saved,R2:raw:fused:replay,m2:g:off:replay' fwd,bwd,fwd+bwd
export KDA_DH_NARROW_TILES=1 KDA_STATE_NARROW_TILES=1
AB_SHOW='fwd|bwd|fwd_state|bwd_dh|bwd_grad' ab nt1 $LIB $HEAD 90 'R2:g:off:saved,R2:raw:fused:saved' fwd,bwd
unset KDA_DH_NARROW_TILES KDA_STATE_NARROW_TILES
tar -C "$out" -czf "$out/call-a-logs.tgz" $(cd "$out" && ls *.log *.json) && (cd "$out" && rm -f *.log *.json)
