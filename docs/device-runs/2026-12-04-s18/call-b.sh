#!/usr/bin/env bash
# Session 18, device call B. v32: bwd_grad takes h, dh, dv_new and dv_new's lo half through the
# copy engine (one thread, 128-byte-swizzled [128][64] / [64][64] boxes, mbarriers) instead of
# every thread's 16-byte cp.async (9 000 requests a tile); the other warps no longer wait at a CTA
# barrier for warp 0's flag acquire. v32b (the carried libkda.so) = v32 with the swizzled ldmatrix
# addresses formed once per product (an XOR per k step): v32 spilled more registers than v29.
# Checks of v32b against v29 (the session's start): bits on every key, GPU tests, sanitizers; v32's
# bits on m2 and R2; then A/B of both against v29 on the backward.
set -u
. scripts/device-env.sh
HEAD=$bin/libkda-v29.so
export LIB=$bin/libkda.so
check_build v32b 16
LIB=$bin/libkda-v32.so same_bits v32 "" 'm2:*:*:*,R2:*:*:*'
ROWS='R2:g:off:saved,R2:raw:fused:saved,R2:g:fused:replay,m2:g:off:saved,m2:raw:off:replay,4doc:g:off:saved,4doc:raw:fused:saved'
AB_SHOW='bwd \||bwd_grad' ab v32 $bin/libkda-v32.so $HEAD 200 "$ROWS" bwd
AB_SHOW='bwd \||bwd_grad' ab v32b $LIB $HEAD 200 "$ROWS" bwd
sanitize 16
tar -C "$out" -czf "$out/call-b-logs.tgz" $(cd "$out" && ls *.log *.json) && (cd "$out" && rm -f *.log *.json)
