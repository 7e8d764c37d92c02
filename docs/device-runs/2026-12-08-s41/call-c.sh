#!/usr/bin/env bash
# Session 41, call C (written in session 41, which had no device): v61, bwd_grad's stage 5 with
# the same arithmetic in a shorter schedule (docs/wip/v61-grad-stage5-same-bits.patch, branch
# v61-raw-stage5). Its bwd_grad SASS per form against main (development machine, cuobjdump):
#   g:off               identical (this A/B's same-SASS control);
#   g:fused             the L2-norm row factors read once: 103 instructions fewer (84 LDS);
#   raw:off, raw:fused  also the reciprocals of sigmoid four at a time without a branch each,
#                       and dA's column tree on 4 warps behind one named barrier.
# Every result should keep its bits, so the check is --same-bits against main on every key of
# m2, R2 and ragged (168 tensors), then the GPU tests, then the A/B in both orders on R2 (bwd,
# with stage times; ratios below 1 in "v61-main" mean v61 faster), then the sanitizers on the
# moved forms (racecheck matters: the named barrier and the shuffles replace __syncthreads).
# Carried: .carry/bin/libkda.so (main), .carry/xz/libkda-v61.so.xz. Logs: $OUT.
set -u
. scripts/device-env.sh
export HEAD=$bin/libkda.so LIB=$bin/libkda-v61.so
call_begin call-c
check_build v61; pack_logs call-c
# rcp_rn4 against `1.f / y` on all 2^32 float bit patterns (tests/gpu/fast_rcp_test.cu, v61's branch;
# carried as .carry/xz/gpu_helper_tests.xz), a second or two.
chmod +x "$bin/gpu_helper_tests"
timeout 60 "$bin/gpu_helper_tests" > "$out/gpu_helper_tests.log" 2>&1
echo "gpu_helper_tests exit $?: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) +\]' "$out/gpu_helper_tests.log" | tr '\n' ' ')"
pack_logs call-c
rows='R2:*:*:*'
AB_SHOW='\| (bwd|fwd\+bwd) \||bwd_grad' ab v61-main "$LIB" "$HEAD" 120 "$rows" bwd --samples 25; pack_logs call-c
AB_SHOW='\| (bwd|fwd\+bwd) \||bwd_grad' ab main-v61 "$HEAD" "$LIB" 120 "$rows" bwd --samples 25; pack_logs call-c
SANITIZE_CASES='*m2_all_heads/raw_off_saved_normal:*m2_all_heads/raw_fused_replay_fast:*m2_all_heads/g_fused_saved_normal' sanitize 16 memcheck racecheck synccheck
pack_logs call-c
