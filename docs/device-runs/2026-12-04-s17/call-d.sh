#!/usr/bin/env bash
# Session 17, device call D: v27b (v26 + slow_sub_blocks with one barrier instead of four, in
# fwd_intra and bwd_grad; call C's w/u-in-rounds form reverted) against v26; v27c (v27b + the
# 16-column state pass with two input stages, libkda.so) against v27b; bits of v27c against the
# session's base.
set -u
. scripts/device-env.sh
HEAD=$bin/libkda-base.so
export LIB=$bin/libkda.so
check_build v27c
ab v27b $bin/libkda-v27b.so $bin/libkda-v26.so 200 'R2:g:off:saved,R2:raw:fused:replay,m2:g:off:saved,4doc:g:off:replay,1doc:raw:fused:saved' fwd,bwd
ab v27c $LIB $bin/libkda-v27b.so 150 'R2:g:off:saved,R2:raw:fused:replay,m2:g:off:saved,m2:raw:fused:replay' fwd,bwd
sanitize 16
tar -C "$out" -czf "$out/call-d-logs.tgz" $(cd "$out" && ls *.log *.json) && (cd "$out" && rm -f *.log *.json)
