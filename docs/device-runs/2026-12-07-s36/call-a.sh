#!/usr/bin/env bash
# Session 36, call A: session 35's call C (which never ran), but for this header and the H200
# matrix, which runs main (v54), not the unlanded v55.
# Carried: libkda.so = b118476's kernels (v53b, before v54); xz-packed under .carry/xz:
# libkda-v54.so (main at 996f237, v54), libkda-v55.so (main + docs/wip/v55-first-wave-waits-before-
# loads.patch: bwd_grad's first wave waits for its dh flags before any load) and libkda-tl-v55.so
# (the same source with -DKDA_TIMELINE=ON).
# With little device time left, in order of need: v55's checks (same bits as main on m2, R2,
# ragged; GPU tests; its bits being main's, call B's fresh-seed check covers its accuracy),
# v55 - v54 on R2 and m2, v55's timelines (v54's are call B's), a control on R2 and m2 (main
# against a copy of itself), v54 - main again on m2; on an H200, the small matrix of main (v54). Logs: $OUT.
set -u
. scripts/device-env.sh
unpack_xz
export HEAD=$bin/libkda.so
pack_logs call-a
cp $HEAD $bin/libkda-main2.so # the control's "after": main's bytes as another library instance
LIB=$bin/libkda-v55.so same_bits own55 "" 'm2:*:*:*,R2:*:*:*,ragged:*:*:*'
gpu_tests v55 $bin/libkda-v55.so; pack_logs call-a
show='bwd_grad|bwd_dh|\| (fwd|bwd|fwd\+bwd) \|'
AB_SHOW=$show ab v55-v54 $bin/libkda-v55.so $bin/libkda-v54.so 100 'R2:*:*:*,m2:*:*:*' fwd,bwd,fwd+bwd; pack_logs call-a
top=$out
out=$top/tl-v55; mkdir -p "$out"
for key in R2:raw:fused:saved R2:g:off:saved m2:raw:fused:saved; do TL=$bin/libkda-tl-v55.so timeline $key fwd+bwd; done
out=$top; pack_logs call-a
AB_SHOW=$show ab ctl $bin/libkda-main2.so $HEAD 100 'R2:*:*:*,m2:*:*:*' fwd,bwd,fwd+bwd; pack_logs call-a
AB_SHOW=$show ab v54-main $bin/libkda-v54.so $HEAD 60 'm2:*:*:*' fwd,bwd,fwd+bwd
out=$top; pack_logs call-a
if grep -q H200 "$out/card.txt"; then cp $bin/libkda-v54.so $bin/libkda.so; SMALL_TIMEOUT=150 scripts/device-matrix.sh small; pack_logs call-a; fi
find "$out" -name '*.log' -o -name '*.json' -o -name '*.csv' | grep -v results/ | xargs rm -f
