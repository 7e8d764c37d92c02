#!/usr/bin/env bash
# Session 24, device call C: Nsight Compute on bwd_grad, for what to cut next and for g:off, whose
# bwd_grad v40 - v43 left at +1.3 - 1.8 % (the other forms -5 to -7 %). libkda.so = HEAD (v43),
# libkda-v39.so = d50d5bd. R2:g:off:saved for both, R2:g:fused:saved and R2:raw:fused:saved for v43
# (per-instruction stall samples: scripts/ncu_phases.py). First v44 (libkda-v44.so: bwd_grad issues
# v_new's register loads before the copies): bits against v43 on every key of m2, R2, ragged, and
# A/B against v43 on R2 (bwd, stage times).
set -u
. scripts/device-env.sh
nvidia-smi --query-gpu=name --format=csv,noheader
LIB=$bin/libkda-v44.so same_bits v44 "" 'm2:*:*:*,R2:*:*:*,ragged:*:*:*' $bin/libkda.so
AB_SHOW='bwd_grad|[|] bwd [|]' ab v44-R2 $bin/libkda-v44.so $bin/libkda.so 100 'R2:*:*:*' bwd
LIB=$bin/libkda.so ncu_kernel grad-v43-R2-goff-saved 'bwd_grad' 'R2:g:off:saved' bwd
LIB=$bin/libkda-v39.so ncu_kernel grad-v39-R2-goff-saved 'bwd_grad' 'R2:g:off:saved' bwd
LIB=$bin/libkda.so ncu_kernel grad-v43-R2-gfused-saved 'bwd_grad' 'R2:g:fused:saved' bwd
LIB=$bin/libkda.so ncu_kernel grad-v43-R2-rawfused-saved 'bwd_grad' 'R2:raw:fused:saved' bwd
tar -C "$out" -czf "$out/call-c-logs.tgz" $(cd "$out" && ls *.log *.json *.csv 2>/dev/null) && (cd "$out" && rm -f *.log *.json *.csv)
