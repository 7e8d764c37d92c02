#!/usr/bin/env bash
# Session 38, call A: bwd_dh's first-chunk marks (timeline build of main eb76800, carried as
# .carry/xz/libkda-tl.so.xz) on R2's saved keys, fwd+bwd; on an H200 also the small part of the
# matrix for the landed v56. Logs: $OUT.
set -u
. scripts/device-env.sh
unpack_xz
pack_logs call-a
top=$out
out=$top/tl; mkdir -p "$out"
for key in R2:g:off:saved R2:raw:fused:saved; do TL=$bin/libkda-tl.so timeline $key fwd+bwd; done
tl_waves dh grad
out=$top; pack_logs call-a
if grep -q H200 "$out/card.txt"; then
  SMALL_TIMEOUT=170 scripts/device-matrix.sh small; pack_logs call-a
  LIB=$bin/libkda.so seed_check v56 2512071; pack_logs call-a
fi
