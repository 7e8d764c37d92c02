#!/usr/bin/env bash
# Session 38, call A: bwd_dh's first-chunk marks, and v57 (bwd_dh's cluster barrier split into
# arrive and wait around each role's own work, the copy engine's descriptors prefetched).
# Carried: .carry/bin/libkda.so (main eb76800 = v56); xz under .carry/xz: libkda-tl.so (main's
# timeline build), libkda-v57.so and libkda-tl-v57.so. On an H200 also the small part of the
# matrix for the landed v56. Logs: $OUT.
set -u
. scripts/device-env.sh
export HEAD=$bin/libkda.so
call_begin call-a
out=$top/tl; mkdir -p "$out"
for key in R2:g:off:saved R2:raw:fused:saved; do TL=$bin/libkda-tl.so timeline $key fwd+bwd; done
tl_waves dh grad
out=$top/tl-v57; mkdir -p "$out"
for key in R2:g:off:saved R2:raw:fused:saved; do TL=$bin/libkda-tl-v57.so timeline $key fwd+bwd; done
tl_waves dh grad
out=$top; pack_logs call-a
LIB=$bin/libkda-v57.so same_bits v57 "" 'm2:*:*:*,R2:*:*:*,ragged:*:*:*'
KDA_DH_NARROW_TILES=1 LIB=$bin/libkda-v57.so same_bits v57-nv1 "" 'R2:*:*:*,ragged:*:*:*'
gpu_tests v57 $bin/libkda-v57.so; pack_logs call-a
LIB=$bin/libkda-v57.so sanitize 16 memcheck synccheck; pack_logs call-a
AB_SHOW='bwd_dh|\| (bwd|fwd\+bwd) \|' ab v57-main $bin/libkda-v57.so $HEAD 90 'R2:*:*:*,m2:*:*:*' bwd,fwd+bwd; pack_logs call-a
cp $HEAD $bin/libkda-main2.so
AB_SHOW='\| (bwd|fwd\+bwd) \|' ab ctl $bin/libkda-main2.so $HEAD 90 'R2:*:*:*,m2:*:*:*' bwd,fwd+bwd; pack_logs call-a
if grep -q H200 "$out/card.txt"; then
  SMALL_TIMEOUT=170 scripts/device-matrix.sh small; pack_logs call-a
fi
