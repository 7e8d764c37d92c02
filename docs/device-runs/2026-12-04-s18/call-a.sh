#!/usr/bin/env bash
# Session 18, device call A. v30: the 16-column forward state pass has the copy engine store the
# saved set's v_new (fp32 [64][16] boxes, 64-byte swizzle) beside h, instead of the chain warps'
# 8-byte global stores. v31 = v30 + bwd_grad starts do h^T once h, do and X are in, before dh and
# dv_new (bwd_dh's outputs, loaded last). Checks of v31 against v29 (the session's start, a1c2c7b):
# bits on every key, GPU tests (the misaligned-tensor test of c95cf4c runs for the first time),
# FP64 on a fresh seed, sanitizers; then A/B v30 against v29 and v31 against v30.
set -u
. scripts/device-env.sh
HEAD=$bin/libkda-v29.so
export LIB=$bin/libkda.so
check_build v31 16
timeout 120 $bin/kda-bench --log-level warn --rows 'm2:*:*:*' --ops fwd,bwd --decay normal,fast --check --seed 20261206 \
  --no-timing --out "$out/check-m2-seed20261206.json" > "$out/check-m2-seed20261206.log" 2>&1
echo "check m2 seed 20261206 exit $?: $(grep -ciE 'FAIL' "$out/check-m2-seed20261206.log") lines with FAIL"
ab v30 $bin/libkda-v30.so $HEAD 200 'R2:g:off:saved,R2:raw:fused:saved,R2:raw:fused:replay,m2:g:off:saved,m2:raw:fused:replay' fwd,bwd
ab v31 $LIB $bin/libkda-v30.so 150 'R2:g:off:saved,R2:raw:fused:saved,m2:g:off:saved,4doc:raw:fused:saved' bwd
sanitize 16
tar -C "$out" -czf "$out/call-a-logs.tgz" $(cd "$out" && ls *.log *.json) && (cd "$out" && rm -f *.log *.json)
