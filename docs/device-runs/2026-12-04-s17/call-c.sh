#!/usr/bin/env bash
# Session 17, device call C: v27 (fwd_intra's w and u by row blocks inside the inverse's rounds,
# on the warps each round leaves free; slow_sub_blocks with one barrier instead of four, in
# fwd_intra and bwd_grad) against v26 (libkda-v26.so), bits against the session's base.
set -u
. scripts/device-env.sh
HEAD=$bin/libkda-base.so
export LIB=$bin/libkda.so
check_build v27
ab v27 $LIB $bin/libkda-v26.so 240 'R2:g:off:saved,R2:raw:fused:replay,m2:g:off:saved,4doc:g:off:replay,1doc:raw:fused:saved' fwd,bwd
sanitize 16
tar -C "$out" -czf "$out/call-c-logs.tgz" $(cd "$out" && ls *.log *.json) && (cd "$out" && rm -f *.log *.json)
