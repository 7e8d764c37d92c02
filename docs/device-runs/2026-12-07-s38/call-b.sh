#!/usr/bin/env bash
# Session 38, call B: where bwd_grad's first wave spends its stages 3 - 4 (docs/perf-log.md,
# "Session 38"). Timeline build of main with bwd_grad's five marks (.carry/xz/libkda-tl5.so.xz):
# R2's g:off and raw:fused saved keys, fwd+bwd and bwd alone (bwd after bwd: bwd_grad's code
# may still be in the SMs' instruction caches), g:fused fwd+bwd. On an H200 also the small part
# of the matrix for the landed v56 (.carry/bin/libkda.so). Logs: $OUT.
set -u
. scripts/device-env.sh
call_begin call-b
out=$top/tl5; mkdir -p "$out"
for key in R2:g:off:saved R2:raw:fused:saved; do TL=$bin/libkda-tl5.so timeline $key fwd+bwd bwd; done
TL=$bin/libkda-tl5.so timeline R2:g:fused:saved fwd+bwd
tl_waves grad
out=$top; pack_logs call-b
if grep -q H200 "$out/card.txt"; then
  SMALL_TIMEOUT=170 scripts/device-matrix.sh small; pack_logs call-b
  LIB=$bin/libkda.so seed_check v56 2512071; pack_logs call-b
fi
