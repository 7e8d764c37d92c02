#!/usr/bin/env bash
# Session 33, call A. Carried as in session 32 (docs/device-runs/2026-12-07-s32/README.md):
# libkda.so = 0f2d24e (kernels v49), libkda-v48.so = fb4ae71 (v48), libkda-v51.so = v51
# (docs/wip/v51-persistent-grad.patch). Session 32's call A (v51's checks, then the A/B v51 - v49
# on R2's backward), then Nsight Compute on bwd_grad of R2:raw:fused:saved for v51 and v49, for
# where the next cut of bwd_grad's per-item cost must come from. Logs: $OUT.
set -u
bash docs/device-runs/2026-12-07-s32/call-a.sh
. scripts/device-env.sh
LIB=$bin/libkda-v51.so ncu_kernel grad-v51 bwd_grad 'R2:raw:fused:saved' bwd; pack_logs call-a-ncu
LIB=$bin/libkda.so ncu_kernel grad-v49 bwd_grad 'R2:raw:fused:saved' bwd; pack_logs call-a-ncu
rm -f "$out"/*.log "$out"/*.json "$out"/*.csv "$out"/*.csv.gz  # all in call-a-ncu-logs.tgz
