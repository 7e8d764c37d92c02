#!/usr/bin/env bash
# Session 37, call B: where bwd_grad's blocks beside bwd_dh spend their extra time (docs/perf-log.md,
# "Session 37"). Timeline builds with marks (xz under .carry/xz): libkda-tl-v54m.so (main after the
# marks commit) and libkda-tl-va.so (the same with k_publish_every = 1); libkda-va.so its normal
# build; libkda-v54.so main's normal build. Logs: $OUT.
set -u
. scripts/device-env.sh
unpack_xz
pack_logs call-b
top=$out
waves() { # the per-wave view with marks of every bwd_grad in $out
  local f
  for f in "$out"/tl-*-0.csv; do echo "== ${f#$top/}"; python3 scripts/timeline_summary.py "$f" --waves grad | tail -n +3 | head -12; done
}
for v in v54m va; do
  out=$top/tl-$v; mkdir -p "$out"
  for key in R2:g:off:saved R2:raw:fused:saved; do TL=$bin/libkda-tl-$v.so timeline $key fwd+bwd; done
  [ $v = v54m ] && TL=$bin/libkda-tl-v54m.so timeline R2:raw:fused:replay fwd+bwd
  waves
done
out=$top/tl-v54m-dh1; mkdir -p "$out"
KDA_DH_NARROW_TILES=1 TL=$bin/libkda-tl-v54m.so timeline R2:g:off:saved fwd+bwd
waves
# The chains' step against how many chain CTAs run: one sequence of R2's longest length (7000
# tokens) with 1 head (fwd_state 8 CTAs, bwd_dh 4) and with 4 heads (32 and 16), against R2 (96, 48).
scen=/tmp/scen; mkdir -p $scen; cp scenarios/*.json $scen/
for h in 1 4; do
  printf '{"name": "s7000h%s", "description": "one 7000-token sequence, %s head(s) (session 37 call B)", "seq_lens": [7000], "heads": %s}\n' $h $h $h > $scen/s7000h$h.json
done
out=$top/tl-v54m-one; mkdir -p "$out"
for h in 1 4; do KDA_SCENARIOS=$scen TL=$bin/libkda-tl-v54m.so timeline s7000h$h:g:off:saved fwd+bwd; done
for f in "$out"/tl-*-0.csv; do echo "== ${f#$top/}"; python3 scripts/timeline_summary.py "$f" | sed -n 2,9p; done
out=$top; pack_logs call-b
export HEAD=$bin/libkda-v54.so
LIB=$bin/libkda-va.so same_bits va "" 'm2:*:*:*,R2:*:*:*,ragged:*:*:*'
AB_SHOW='bwd_grad|bwd_dh|\| (fwd|bwd|fwd\+bwd) \|' ab va-v54 $bin/libkda-va.so $bin/libkda-v54.so 90 'R2:*:*:saved' fwd,bwd,fwd+bwd
cp $HEAD $bin/libkda-v54b.so
AB_SHOW='\| (bwd|fwd\+bwd) \|' ab ctl $bin/libkda-v54b.so $HEAD 90 'R2:*:*:saved' fwd,bwd,fwd+bwd
out=$top; pack_logs call-b
find "$out" -name '*.log' -o -name '*.json' -o -name '*.csv' | grep -v results/ | xargs rm -f
