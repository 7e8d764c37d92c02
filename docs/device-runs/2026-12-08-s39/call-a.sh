#!/usr/bin/env bash
# Session 39, call A (session 38's call C, unchanged): is bwd_grad's first wave paced in stages 3d - 4 by fetching its code (docs/perf-log.md,
# "Session 38")? The timeline build with five marks (.carry/xz/libkda-tl5.so.xz) on
# R2:g:off:saved, --ops bwd with warm L2 (as call B) and with --cold-l2 (L2 written over before
# each call, so the last call's code and data come from DRAM), and R2:raw:fused:saved the same.
# On an H200 also the small part of the matrix for the landed v56. Logs: $OUT.
set -u
. scripts/device-env.sh
call_begin call-a
for l2 in warm cold; do
  out=$top/tl5-$l2; mkdir -p "$out"
  flag=; [ $l2 = cold ] && flag=--cold-l2
  for key in R2:g:off:saved R2:raw:fused:saved; do
    name=$(echo "$key" | tr ':' '-')-bwd
    KDA_TIMELINE_OUT=$out/tl-$name timeout 40 $bin/kda-bench --log-level warn --library $bin/libkda-tl5.so \
      --rows "$key" --ops bwd --samples 3 --calls 5 $flag --out "$out/tl-$name.json" > "$out/tl-$name.log" 2>&1
    echo "timeline $l2 $name exit $?"
  done
  tl_waves grad
done
out=$top; pack_logs call-a
if grep -q H200 "$out/card.txt"; then
  SMALL_TIMEOUT=170 scripts/device-matrix.sh small; pack_logs call-a
  LIB=$bin/libkda.so seed_check v56 2512071; pack_logs call-a
fi
