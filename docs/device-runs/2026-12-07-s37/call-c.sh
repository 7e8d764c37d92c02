#!/usr/bin/env bash
# Session 37, call C: v56 (bwd_dh's CTAs of a sequence and head as one cluster sharing the wide
# tiles' copies by multicast; docs/perf-log.md, "Session 37"). Carried (xz under .carry/xz):
# libkda-v56.so, libkda-tl-v56.so (its timeline build), libkda-v54.so (main before it, normal
# build). Logs: $OUT.
set -u
. scripts/device-env.sh
unpack_xz
export HEAD=$bin/libkda-v54.so
pack_logs call-c
LIB=$bin/libkda-v56.so same_bits v56 "" 'm2:*:*:*,R2:*:*:*,ragged:*:*:*'
KDA_DH_NARROW_TILES=1 LIB=$bin/libkda-v56.so same_bits v56-nv1 "" 'R2:*:*:*,ragged:*:*:*'
gpu_tests v56 $bin/libkda-v56.so; pack_logs call-c
# racecheck reports multicast writes against the reads of the same bytes (it does not follow the
# cluster's mbarrier protocol: v17, session 12), so memcheck and synccheck here
LIB=$bin/libkda-v56.so sanitize 16 memcheck synccheck; pack_logs call-c
show='bwd_grad|bwd_dh|\| (fwd|bwd|fwd\+bwd) \|'
AB_SHOW=$show ab v56-v54 $bin/libkda-v56.so $HEAD 100 'R2:*:*:*,m2:*:*:*' fwd,bwd,fwd+bwd; pack_logs call-c
cp $HEAD $bin/libkda-v54b.so
AB_SHOW='\| (bwd|fwd\+bwd) \|' ab ctl $bin/libkda-v54b.so $HEAD 100 'R2:*:*:*,m2:*:*:*' fwd,bwd,fwd+bwd; pack_logs call-c
top=$out; out=$top/tl-v56; mkdir -p "$out"
for key in R2:g:off:saved R2:raw:fused:saved R2:raw:fused:replay; do TL=$bin/libkda-tl-v56.so timeline $key fwd+bwd; done
for f in "$out"/tl-*-0.csv; do
  echo "== ${f#$top/}"; python3 scripts/timeline_summary.py "$f" | sed -n 2,8p
  python3 scripts/timeline_summary.py "$f" --waves grad | tail -n +3 | head -6
done
out=$top; pack_logs call-c
find "$out" -name '*.log' -o -name '*.json' -o -name '*.csv' | grep -v results/ | xargs rm -f
