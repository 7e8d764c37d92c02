#!/usr/bin/env bash
# Session 41, call C (written in session 41, which had no device): v61 + v62, two same-bits
# schedules in one library (docs/wip/v61-grad-stage5-same-bits.patch, then
# docs/wip/v62-norm-rows-together.patch; branch v62-norm-rows). SASS per kernel against main
# (development machine, scripts/kernel_static.py):
#   bwd_grad g:off      identical (this A/B's same-SASS control, with every non-fused forward);
#   bwd_grad g:fused    v61: the L2-norm row factors read once (84 LDS fewer); v62: a warp's
#                       eight norm rows together (+285 instructions);
#   bwd_grad raw forms  v61: the reciprocals of sigmoid four at a time without a branch each, dA's
#                       column tree on 4 warps behind one named barrier; raw:fused also v62: a
#                       warp's four norm rows together;
#   fwd_intra fused     v62: a warp's eight norm rows together (+284 instructions, unrolled).
# Every result should keep its bits, so the check is --same-bits against main on every key of
# m2, R2 and ragged (168 tensors), then the GPU tests, then the A/B in both orders on R2 (fwd and
# bwd, with stage times: fwd_intra moves only with v62, bwd_grad's raw and g:fused forms with v61;
# ratios below 1 in "v62-main" mean the new library faster), then the sanitizers on the moved
# forms (racecheck matters: the named barrier and the shuffles replace __syncthreads).
# Carried: .carry/bin/libkda.so (main), .carry/xz/libkda-v62.so.xz, .carry/xz/gpu_helper_tests.xz.
# Logs: $OUT.
set -u
. scripts/device-env.sh
export HEAD=$bin/libkda.so LIB=$bin/libkda-v62.so
call_begin call-c
check_build v62; pack_logs call-c
# rcp_rn4 against `1.f / y` on all 2^32 float bit patterns (tests/gpu/fast_rcp_test.cu, v61's branch;
# carried as .carry/xz/gpu_helper_tests.xz), a second or two.
chmod +x "$bin/gpu_helper_tests"
timeout 60 "$bin/gpu_helper_tests" > "$out/gpu_helper_tests.log" 2>&1
echo "gpu_helper_tests exit $?: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) +\]' "$out/gpu_helper_tests.log" | tr '\n' ' ')"
pack_logs call-c
rows='R2:*:*:*'
AB_SHOW='\| (fwd|bwd) \||bwd_grad|fwd_intra' ab v62-main "$LIB" "$HEAD" 150 "$rows" fwd,bwd --samples 25; pack_logs call-c
AB_SHOW='\| (fwd|bwd) \||bwd_grad|fwd_intra' ab main-v62 "$HEAD" "$LIB" 150 "$rows" fwd,bwd --samples 25; pack_logs call-c
SANITIZE_CASES='*m2_all_heads/raw_off_saved_normal:*m2_all_heads/raw_fused_replay_fast:*m2_all_heads/g_fused_saved_normal' sanitize 16 memcheck racecheck synccheck
pack_logs call-c
