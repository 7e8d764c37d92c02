#!/usr/bin/env bash
# Session 35, call B. Carried: libkda.so = main's kernels (b118476); xz-packed (the carry limit):
# libkda-v54.so (bwd_dh publishes its first 8 chunks one by one; the working tree's change),
# libkda-v54b.so (v54 + the same in the 16-column state pass), libkda-tl-head.so and
# libkda-tl-v54.so (timeline builds, -DKDA_TIMELINE=ON, of main and v54).
# v54's checks (same bits as main on m2, R2, ragged; GPU tests; FP64 on a fresh seed with repeat;
# memcheck), then the A/Bs: a control (main against a copy of itself), v54 - main, v54b - v54, and
# the timelines of main and v54 on R2's saved raw:fused and g:off, and replay raw:fused; on an
# H200, main's small matrix. Logs: $OUT.
set -u
. scripts/device-env.sh
for f in .carry/xz/*.xz; do python3 -c "import lzma, sys; sys.stdout.buffer.write(lzma.open(sys.argv[1]).read())" "$f" > "$bin/$(basename "$f" .xz)"; done
cp $bin/libkda.so $bin/libkda-main2.so
export HEAD=$bin/libkda.so
pack_logs call-b
LIB=$bin/libkda-v54.so same_bits own54 "" 'm2:*:*:*,R2:*:*:*,ragged:*:*:*'
LIB=$bin/libkda-v54b.so same_bits own54b "" 'm2:*:*:*,R2:*:*:*,ragged:*:*:*'
gpu_tests v54 $bin/libkda-v54.so; gpu_tests v54b $bin/libkda-v54b.so; pack_logs call-b
LIB=$bin/libkda-v54.so seed_check v54 2512069; pack_logs call-b
LIB=$bin/libkda-v54.so sanitize 16 memcheck; pack_logs call-b
AB_SHOW='bwd_grad|bwd_dh|\| (fwd|bwd|fwd\+bwd) \|' ab ctl $bin/libkda-main2.so $HEAD 100 'R2:*:*:*' fwd,bwd,fwd+bwd; pack_logs call-b
AB_SHOW='bwd_grad|bwd_dh|\| (fwd|bwd|fwd\+bwd) \|' ab v54-main $bin/libkda-v54.so $HEAD 150 'R2:*:*:*,m2:*:*:*' fwd,bwd,fwd+bwd; pack_logs call-b
AB_SHOW='bwd_grad|bwd_dh|fwd_state|fwd_output|\| (fwd|bwd|fwd\+bwd) \|' ab v54b-v54 $bin/libkda-v54b.so $bin/libkda-v54.so 100 'R2:*:*:*' fwd,bwd,fwd+bwd; pack_logs call-b
top=$out
for v in head v54; do
  out=$top/tl-$v; mkdir -p "$out"
  for key in R2:raw:fused:saved R2:g:off:saved R2:raw:fused:replay; do TL=$bin/libkda-tl-$v.so timeline $key fwd+bwd; done
done
out=$top; pack_logs call-b
# on the target card only (none of v48 - v53 has run on one): main's small matrix
if grep -q H200 "$out/card.txt"; then SMALL_TIMEOUT=150 scripts/device-matrix.sh small; pack_logs call-b; fi
find "$out" -name '*.log' -o -name '*.json' -o -name '*.csv' | grep -v results/ | xargs rm -f
