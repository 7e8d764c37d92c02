#!/usr/bin/env bash
# Session 19, device call E. v34c (libkda-v34c.so): fwd_output on the replay path's forward too
# (the 16-column pass stores h and v_new into the plan's replay buffer for it). Against v34b (the
# carried libkda.so, 3a4859a): bits on m2, R2, ragged (every key), the forward GPU tests, A/B on
# the replay keys of R2 and m2.
set -u
. scripts/device-env.sh
HEAD=$bin/libkda.so
export LIB=$bin/libkda-v34c.so
same_bits own "" 'm2:*:*:*,R2:*:*:*,ragged:*:*:*'
KDA_LIBRARY=$LIB timeout 120 $bin/gpu_fwd_tests > "$out/gpu_fwd_tests-v34c.log" 2>&1
echo "gpu_fwd_tests-v34c exit $?: $(grep -E '^\[  (PASSED|FAILED) +\] [0-9]' "$out/gpu_fwd_tests-v34c.log" | tr '\n' ' ')"
AB_SHOW='fwd|fwd_output|fwd_state' ab v34c $LIB $HEAD 200 'R2:*:*:replay,m2:g:off:replay,m2:raw:fused:replay' fwd,fwd+bwd
tar -C "$out" -czf "$out/call-e-logs.tgz" $(cd "$out" && ls *.log *.json) && (cd "$out" && rm -f *.log *.json)
