#!/usr/bin/env bash
# Session 41, call E (written in session 41, which had no device): v63 on top of v61 + v62
# (docs/wip/v63-grad-stage4-split.patch after the v61 and v62 patches; branch
# v63-grad-stage4-split). In every bwd_grad form the warp of row block 3 forms row block 0's last
# column-side k step and hands it over through smem, so block 0's column-side sums are split in
# two: dk and dgamma of each chunk's rows 0 - 15 change bits (and through dgamma dg / dx, dA_log,
# dt_bias); dq, dv, dbeta and every forward output keep theirs. So: `--same-bits` against v61 + v62 to see
# exactly which tensors move against v62 (expected DIFFERENT: dk, dg or dx, dA_log, dt_bias; the rest
# identical), the FP64 check on fresh inputs, the GPU tests, then the A/B against v61 + v62 in both
# orders on R2 (bwd, stage times), then racecheck and synccheck (two more named barriers).
# Carried: .carry/xz/libkda-v62.so.xz (v61 + v62), .carry/xz/libkda-v63.so.xz (v61 + v62 + v63). Logs: $OUT.
set -u
. scripts/device-env.sh
export HEAD=$bin/libkda-v62.so LIB=$bin/libkda-v63.so
call_begin call-e
same_bits v63-v62 "" 'm2:*:*:*,R2:*:*:*,ragged:*:*:*'; pack_logs call-e
seed_check v63 2512072; pack_logs call-e # fresh inputs: no earlier session used this seed
gpu_tests v63 "$LIB"; pack_logs call-e
rows='R2:*:*:*'
AB_SHOW='\| (bwd|fwd\+bwd) \||bwd_grad' ab v63-v62 "$LIB" "$HEAD" 120 "$rows" bwd --samples 25; pack_logs call-e
AB_SHOW='\| (bwd|fwd\+bwd) \||bwd_grad' ab v62-v63 "$HEAD" "$LIB" 120 "$rows" bwd --samples 25; pack_logs call-e
SANITIZE_CASES='*m2_all_heads/g_off_saved_normal:*m2_all_heads/raw_fused_replay_fast' sanitize 16 racecheck synccheck
pack_logs call-e
