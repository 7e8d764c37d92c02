#!/usr/bin/env bash
# Session 40, call A (written in session 40, which had no device): v59c, bwd_grad on 16 warps in
# every form (docs/wip/v59c-grad-every-form-16-warps.patch on branch v59-gfused-16warps). Its
# bwd_grad SASS is, per form (checked on the development machine, cuobjdump -sass):
#   raw:off, raw:fused  main's (so the raw keys are this A/B's same-SASS control);
#   g:fused             v59's (the landing candidate: the fused g form on 16 warps);
#   g:off               new (the plain g form on 16 warps as well).
# So one library answers both questions. The checks first (the bits of the moved forms change:
# their dbeta, and with the norm dq and dk, add four column-group partials instead of two), then
# the A/B in both orders on every key of R2 and m2 (with main as the after side, ratios above 1
# mean v59c faster), then the g keys of the big rows, where the fused g form's gap is largest.
# Carried: .carry/bin/libkda.so (main), .carry/xz/libkda-v59c.so.xz. Logs: $OUT.
set -u
. scripts/device-env.sh
export HEAD=$bin/libkda.so LIB=$bin/libkda-v59c.so
call_begin call-a
check_build v59c; pack_logs call-a
seed_check v59c 2512071; pack_logs call-a # fresh inputs: no earlier session used this seed
SANITIZE_CASES='*m2_all_heads/g_off_saved_normal:*m2_all_heads/g_fused_replay_fast' sanitize 16 memcheck racecheck synccheck
pack_logs call-a
rows='R2:*:*:*,m2:*:*:*'
AB_SHOW='\| (bwd|fwd\+bwd) \||bwd_grad' ab v59c-main "$LIB" "$HEAD" 150 "$rows" bwd,fwd+bwd --samples 25; pack_logs call-a
AB_SHOW='\| (bwd|fwd\+bwd) \||bwd_grad' ab main-v59c "$HEAD" "$LIB" 150 "$rows" bwd,fwd+bwd --samples 25; pack_logs call-a
AB_SHOW='\| bwd \||bwd_grad' ab big-v59c-main "$LIB" "$HEAD" 150 '4doc:g:*:saved,1doc:g:fused:saved' bwd --samples 5; pack_logs call-a
# Why the fused g form on 8 warps lags: Nsight Compute on bwd_grad of R2's saved g keys, main's
# two g forms and v59c's fused one (about 30 s each; the archive keeps the per-instruction
# pages). The reading to look for: the share of "no instruction" stalls (instruction fetch) in
# main's g:fused against its g:off and against v59c's g:fused. Read the phases with
# scripts/ncu_phases.py (the .so of each, its ncu-*-sass.csv.gz, kernels/bwd/grad.cu).
LIB=$HEAD ncu_kernel grad-goff-main bwd_grad R2:g:off:saved bwd; pack_logs call-a
LIB=$HEAD ncu_kernel grad-gfused-main bwd_grad R2:g:fused:saved bwd; pack_logs call-a
ncu_kernel grad-gfused-v59c bwd_grad R2:g:fused:saved bwd; pack_logs call-a
# And main's raw:fused, for the phase table of the raw form's stage 5 (perf-log "Session 40": in
# the timeline it takes 5.5 us of a 38 us tile against g:off's 1.9).
LIB=$HEAD ncu_kernel grad-rawfused-main bwd_grad R2:raw:fused:saved bwd; pack_logs call-a
