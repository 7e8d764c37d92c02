#!/usr/bin/env bash
# Session 39, call B: v58, bwd_grad's code warm-up (one block of bwd_grad run just before bwd_dh,
# its outputs into a sink, so that the real launch's first wave finds the code in L2), with call
# A's cold/warm timelines of main first (call A never ran: no machine).
# Carried: .carry/bin/libkda.so (main = v56, same SASS as af3a8d8); xz under .carry/xz:
# libkda-tl5.so (main's timeline build, five grad marks), libkda-v58.so, libkda-tl-v58.so.
# Logs: $OUT.
set -u
. scripts/device-env.sh
export HEAD=$bin/libkda.so
call_begin call-b
# call A's question on main: does an L2 written over before the timed call change the first wave?
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
# v58's timelines: the warm-up block against the first wave, fwd+bwd and bwd
out=$top/tl-v58; mkdir -p "$out"
for key in R2:g:off:saved R2:raw:fused:saved; do TL=$bin/libkda-tl-v58.so timeline $key fwd+bwd bwd; done
tl_waves grad grad_warmup
out=$top; pack_logs call-b
# v58 checked before it is timed: the same bits as main, GPU tests, memcheck and synccheck
LIB=$bin/libkda-v58.so check_build v58; pack_logs call-b
LIB=$bin/libkda-v58.so sanitize 16 memcheck synccheck; pack_logs call-b
# timed: v58 against main, and main against a byte copy of itself (the control)
AB_SHOW='bwd_grad|\| (bwd|fwd\+bwd) \|' ab v58-main $bin/libkda-v58.so $HEAD 100 'R2:*:*:*,m2:*:*:*' bwd,fwd+bwd; pack_logs call-b
cp $HEAD $bin/libkda-main2.so
AB_SHOW='\| (bwd|fwd\+bwd) \|' ab ctl $bin/libkda-main2.so $HEAD 100 'R2:*:*:*,m2:*:*:*' bwd,fwd+bwd; pack_logs call-b
