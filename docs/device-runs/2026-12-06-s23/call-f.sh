#!/usr/bin/env bash
# Session 23, device call F, with the session's last device minutes. Nsight Compute on bwd_grad's
# g:fused form, v38c (libkda.so) and v39 (libkda-v39.so), R2:g:fused:saved: v39 took that form
# +1 to +2 % where the others gained 2 - 8 %. Then, only if the card is an H200, call B's matrix
# small part and A/B against v37 for the landed build (v39), the figures README quotes.
set -u
. scripts/device-env.sh
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "$gpu"
LIB=$bin/libkda.so ncu_kernel grad-v38c-R2-gfused-saved 'bwd_grad' 'R2:g:fused:saved' bwd
LIB=$bin/libkda-v39.so ncu_kernel grad-v39-R2-gfused-saved 'bwd_grad' 'R2:g:fused:saved' bwd
case "$gpu" in
*H200*) CANDIDATE=v39 bash docs/device-runs/2026-12-06-s23/call-b.sh ;;
*) tar -C "$out" -czf "$out/call-f-logs.tgz" $(cd "$out" && ls *.log *.json *.csv 2>/dev/null) && (cd "$out" && rm -f *.log *.json *.csv) ;;
esac
