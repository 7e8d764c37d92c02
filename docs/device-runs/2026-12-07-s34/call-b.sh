#!/usr/bin/env bash
# Session 34, call B. Carried: libkda.so = 0f2d24e (v49, main's kernels), libkda-v48.so = fb4ae71,
# libkda-v52.so = main + v52 (bwd_grad's raw form loads A_log and dt_bias before stage 5's suffix
# sums instead of after them; the same arithmetic). v52's checks (same bits as v49 on every key of
# m2, R2, ragged; GPU tests), the A/B v52 - v49 on R2's raw keys, then the small matrix (m2 and
# R2, every key, FP64 check and repeat) of main's kernels on whatever card came. Logs: $OUT.
set -u
. scripts/device-env.sh
export LIB=$bin/libkda-v52.so HEAD=$bin/libkda.so
pack_logs call-b
check_build v52; pack_logs call-b
AB_SHOW='bwd_grad|\| (bwd|fwd\+bwd) \|' ab v52-v49 "$LIB" "$HEAD" 100 'R2:raw:*:*' bwd,fwd+bwd; pack_logs call-b
SMALL_TIMEOUT=200 scripts/device-matrix.sh small; pack_logs call-b
find "$out" -name '*.log' -o -name '*.json' | grep -v results/ | xargs rm -f
