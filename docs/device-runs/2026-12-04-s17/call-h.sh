#!/usr/bin/env bash
# Session 17, device call H: v28 (the 16-column forward state pass keeps h in the 32-byte swizzle
# and one output thread has the copy engine store the saved set's h, instead of the output warps'
# 16-byte stores, which call G showed costing the pass 15 %) against v26 (libkda-v26.so, HEAD
# 5a2b01f): bits, GPU tests, sanitizers, A/B.
set -u
. scripts/device-env.sh
HEAD=$bin/libkda-v26.so
export LIB=$bin/libkda.so
check_build v28 16
KDA_STATE_VTILE=16 gpu_tests v28-vt16 $LIB
ab v28 $LIB $HEAD 150 'R2:g:off:saved,R2:raw:fused:replay,m2:g:off:saved,m2:raw:fused:replay' fwd,bwd,fwd+bwd
sanitize 16
tar -C "$out" -czf "$out/call-h-logs.tgz" $(cd "$out" && ls *.log *.json) && (cd "$out" && rm -f *.log *.json)
