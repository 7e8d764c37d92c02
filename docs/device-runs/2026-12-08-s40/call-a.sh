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
# mean v59c faster), then the g keys of the big rows, where the fused g form's gap is largest,
# then the sanitizers. Call B (call-b.sh) has the Nsight Compute steps: run it right after, on the
# warm machine.
# Carried: .carry/bin/libkda.so (main), .carry/xz/libkda-v59c.so.xz. Logs: $OUT.
set -u
. scripts/device-env.sh
export HEAD=$bin/libkda.so LIB=$bin/libkda-v59c.so
call_begin call-a
check_build v59c; pack_logs call-a
seed_check v59c 2512071; pack_logs call-a # fresh inputs: no earlier session used this seed
rows='R2:*:*:*,m2:*:*:*'
AB_SHOW='\| (bwd|fwd\+bwd) \||bwd_grad' ab v59c-main "$LIB" "$HEAD" 150 "$rows" bwd,fwd+bwd --samples 25; pack_logs call-a
AB_SHOW='\| (bwd|fwd\+bwd) \||bwd_grad' ab main-v59c "$HEAD" "$LIB" 150 "$rows" bwd,fwd+bwd --samples 25; pack_logs call-a
AB_SHOW='\| bwd \||bwd_grad' ab big-v59c-main "$LIB" "$HEAD" 150 '4doc:g:*:saved,1doc:g:fused:saved' bwd --samples 5; pack_logs call-a
# The sanitizers last (racecheck can take minutes): timing is not cut if they run long.
SANITIZE_CASES='*m2_all_heads/g_off_saved_normal:*m2_all_heads/g_fused_replay_fast' sanitize 16 memcheck racecheck synccheck
pack_logs call-a
