#!/usr/bin/env bash
# Session 37, call D: v56b (v56 with each chain warp releasing the wide stage after its last read
# of it, on every CTA of the cluster) and v54b (the same early release without the cluster, on
# v54); docs/perf-log.md, "Session 37". Carried (xz under .carry/xz): libkda-v56b.so,
# libkda-v54b.so, libkda-v54.so (main's normal build). Logs: $OUT.
set -u
. scripts/device-env.sh
unpack_xz
export HEAD=$bin/libkda-v54.so
pack_logs call-d
for v in v56b v54b; do LIB=$bin/libkda-$v.so same_bits $v "" 'm2:*:*:*,R2:*:*:*,ragged:*:*:*'; done
KDA_DH_NARROW_TILES=1 LIB=$bin/libkda-v56b.so same_bits v56b-nv1 "" 'R2:*:*:*,ragged:*:*:*'
for v in v56b v54b; do gpu_tests $v $bin/libkda-$v.so; done; pack_logs call-d
LIB=$bin/libkda-v56b.so sanitize 16 memcheck synccheck; pack_logs call-d
show='bwd_dh|\| (bwd|fwd\+bwd) \|'
for v in v56b v54b; do AB_SHOW=$show ab $v-v54 $bin/libkda-$v.so $HEAD 100 'R2:*:*:*,m2:*:*:*' fwd,bwd,fwd+bwd; pack_logs call-d; done
cp $HEAD $bin/libkda-v54c.so
AB_SHOW='\| (bwd|fwd\+bwd) \|' ab ctl $bin/libkda-v54c.so $HEAD 100 'R2:*:*:*,m2:*:*:*' fwd,bwd,fwd+bwd; pack_logs call-d
find "$out" -name '*.log' -o -name '*.json' -o -name '*.csv' | grep -v results/ | xargs rm -f
