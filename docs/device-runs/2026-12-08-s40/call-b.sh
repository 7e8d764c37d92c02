#!/usr/bin/env bash
# Session 40, call B (written in session 40, which had no device): Nsight Compute on bwd_grad,
# right after call A on the same machine (same carry). Logs: $OUT.
set -u
. scripts/device-env.sh
export HEAD=$bin/libkda.so LIB=$bin/libkda-v59c.so
call_begin call-b
# Why the fused g form on 8 warps lags: Nsight Compute on bwd_grad of R2's saved g keys, main's
# two g forms and v59c's fused one (about 30 s each; the archive keeps the per-instruction
# pages). The reading to look for: the share of "no instruction" stalls (instruction fetch) in
# main's g:fused against its g:off and against v59c's g:fused. Read the phases with
# scripts/ncu_phases.py (the .so of each, its ncu-*-sass.csv.gz, kernels/bwd/grad.cu).
LIB=$HEAD ncu_kernel grad-goff-main bwd_grad R2:g:off:saved bwd; pack_logs call-b
LIB=$HEAD ncu_kernel grad-gfused-main bwd_grad R2:g:fused:saved bwd; pack_logs call-b
ncu_kernel grad-gfused-v59c bwd_grad R2:g:fused:saved bwd; pack_logs call-b
# And main's raw:fused, for the phase table of the raw form's stage 5 (perf-log "Session 40": in
# the timeline it takes 5.5 us of a 38 us tile against g:off's 1.9).
LIB=$HEAD ncu_kernel grad-rawfused-main bwd_grad R2:raw:fused:saved bwd; pack_logs call-b
# On an H200 (none has run v48 - v56): the small part of the matrix of main, the H200's first
# figures since v47 (about 110 - 200 s).
if grep -q H200 "$out/card.txt"; then SMALL_TIMEOUT=200 scripts/device-matrix.sh small; pack_logs call-b; fi
