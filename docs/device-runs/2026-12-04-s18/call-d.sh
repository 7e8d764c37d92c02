#!/usr/bin/env bash
# Session 18, device call D. v32d (the carried libkda.so; lands as v32): v32b's 16-byte reads in
# dgamma_C's row dot, except the g form with the L2 norm, which keeps v32c's element reads (same
# SASS as v32c there), and v32c's stage 3c addressing everywhere. Bits against v29, GPU tests, A/B
# against v29 and against v32c on every form (R2, 4doc; bwd_grad and bwd).
set -u
. scripts/device-env.sh
HEAD=$bin/libkda-v29.so
export LIB=$bin/libkda.so
check_build v32d 16
ROWS='R2:g:off:saved,R2:g:fused:saved,R2:raw:off:saved,R2:raw:fused:saved,4doc:g:off:saved,4doc:g:fused:saved,4doc:raw:off:saved,4doc:raw:fused:saved'
AB_SHOW='bwd \||bwd_grad' ab v32d $LIB $HEAD 200 "$ROWS" bwd
AB_SHOW='bwd_grad' ab v32d-v32c $LIB $bin/libkda-v32c.so 200 "$ROWS" bwd
tar -C "$out" -czf "$out/call-d-logs.tgz" $(cd "$out" && ls *.log *.json) && (cd "$out" && rm -f *.log *.json)
