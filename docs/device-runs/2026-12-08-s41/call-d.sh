#!/usr/bin/env bash
# Session 41, call D (written in session 41, which had no device): Nsight Compute, right after
# call C on the same machine (same carry). Logs: $OUT.
# - v62's (v61 + v62) raw:fused bwd_grad, to read stage 5 by source line against session 34's v49
#   table (perf-log "Session 41"): scripts/ncu_phases.py on the v62 library, its ncu-*-sass.csv.gz
#   and the patched kernels/bwd/grad.cu.
# - main's fwd_intra on R2's saved forward, g:off and raw:fused: the last per-instruction profile
#   of fwd_intra is v26's (session 17), and the kernel has changed since (v28's copy-engine stores,
#   v45's kg_lo). R2's forward ends with the longest chain, which starts when the intra stage
#   leaves the SMs, so every us of fwd_intra is a us of R2's forward.
set -u
. scripts/device-env.sh
export HEAD=$bin/libkda.so LIB=$bin/libkda-v62.so
call_begin call-d
ncu_kernel grad-rawfused-v62 bwd_grad R2:raw:fused:saved bwd; pack_logs call-d
LIB=$HEAD ncu_kernel intra-goff-main fwd_intra R2:g:off:saved fwd; pack_logs call-d
LIB=$HEAD ncu_kernel intra-rawfused-main fwd_intra R2:raw:fused:saved fwd; pack_logs call-d
ncu_kernel intra-rawfused-v62 fwd_intra R2:raw:fused:saved fwd; pack_logs call-d # v62's norm rows
