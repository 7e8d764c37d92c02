#!/usr/bin/env bash
# Session 17, device call J: v28b (v28 with the swizzled h and its copy-engine store only where
# the call stores h; the forward of the replay path keeps the padded layout) against v26
# (libkda-v26.so, HEAD 5a2b01f): bits, GPU tests, sanitizers, A/B.
set -u
. scripts/device-env.sh
HEAD=$bin/libkda-v26.so
export LIB=$bin/libkda.so
check_build v28b 16
AB_SHOW=fwd ab v28b-fwd $LIB $HEAD 200 'R2:g:off:saved,R2:g:off:replay,R2:raw:fused:saved,R2:raw:fused:replay,m2:g:off:saved,m2:g:off:replay,m2:raw:fused:saved,m2:raw:fused:replay' fwd --samples 25
AB_SHOW='\| (bwd|fwd\+bwd|bwd/bwd_state_replay) \|' ab v28b-bwd $LIB $HEAD 120 'R2:raw:fused:replay,m2:raw:fused:replay,R2:g:off:saved' bwd,fwd+bwd
sanitize 16
tar -C "$out" -czf "$out/call-j-logs.tgz" $(cd "$out" && ls *.log *.json) && (cd "$out" && rm -f *.log *.json)
