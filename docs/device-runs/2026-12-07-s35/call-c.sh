#!/usr/bin/env bash
# Session 35, call C: never ran (no machine started after call B); kept for the next session.
# Carried: libkda.so = b118476's kernels (v53b, before v54); xz-packed under .carry/xz:
# libkda-v54.so (main at 996f237, v54), libkda-v55.so (main + docs/wip/v55-first-wave-waits-before-
# loads.patch: bwd_grad's first wave waits for its dh flags before any load) and libkda-tl-v55.so
# (the same source with -DKDA_TIMELINE=ON).
# With little device time left, in order of need: v55's checks (same bits as main on m2, R2,
# ragged; GPU tests; its bits being main's, call B's fresh-seed check covers its accuracy),
# v55 - v54 on R2 and m2, v55's timelines (v54's are call B's), a control on R2 and m2 (main
# against a copy of itself), v54 - main again on m2; on an H200, the small matrix (of v55 unless
# MATRIX_LIB names another). Logs: $OUT.
set -u
# CALL names the logs' archive (session 36 runs this script as its call A); MATRIX_LIB the library
# of the H200 matrix.
call=${CALL:-call-c}
. scripts/device-env.sh
unpack_xz
export HEAD=$bin/libkda.so
pack_logs $call
cp $HEAD $bin/libkda-main2.so # the control's "after": main's bytes as another library instance
LIB=$bin/libkda-v55.so same_bits own55 "" 'm2:*:*:*,R2:*:*:*,ragged:*:*:*'
gpu_tests v55 $bin/libkda-v55.so; pack_logs $call
show='bwd_grad|bwd_dh|\| (fwd|bwd|fwd\+bwd) \|'
AB_SHOW=$show ab v55-v54 $bin/libkda-v55.so $bin/libkda-v54.so 100 'R2:*:*:*,m2:*:*:*' fwd,bwd,fwd+bwd; pack_logs $call
top=$out
out=$top/tl-v55; mkdir -p "$out"
for key in R2:raw:fused:saved R2:g:off:saved m2:raw:fused:saved; do TL=$bin/libkda-tl-v55.so timeline $key fwd+bwd; done
out=$top; pack_logs $call
AB_SHOW=$show ab ctl $bin/libkda-main2.so $HEAD 100 'R2:*:*:*,m2:*:*:*' fwd,bwd,fwd+bwd; pack_logs $call
AB_SHOW=$show ab v54-main $bin/libkda-v54.so $HEAD 60 'm2:*:*:*' fwd,bwd,fwd+bwd
out=$top; pack_logs $call
if grep -q H200 "$out/card.txt"; then cp $bin/libkda-${MATRIX_LIB:-v55}.so $bin/libkda.so; SMALL_TIMEOUT=150 scripts/device-matrix.sh small; pack_logs $call; fi
find "$out" -name '*.log' -o -name '*.json' -o -name '*.csv' | grep -v results/ | xargs rm -f
