#!/usr/bin/env bash
# Session 29, device call D: the first per-block timelines (a KDA_TIMELINE build, docs/timeline.md)
# of R2's and m2's overlapped stages, and what the stamps cost (A/B of the timeline build against
# the normal one). (Cut down to fit the 350 s of device time left after six failed starts: the
# small matrix with the landed tail of 4 chunks did not run.)
# Carried: libkda.so = v47 as landed (b8e3e38 + the timeline hooks, which leave every kernel's
# SASS unchanged), libkda-tl.so = the same built with -DKDA_TIMELINE=ON.
set -u
. scripts/device-env.sh
pack_logs call-d
TL=$bin/libkda-tl.so
for run in R2:g:off:saved/fwd R2:g:off:saved/bwd R2:raw:fused:saved/fwd R2:raw:fused:saved/bwd R2:g:off:replay/bwd \
           m2:g:off:saved/fwd; do
  key=${run%/*} op=${run#*/}
  name=$(echo "$key" | tr ':' '-')-$op
  KDA_TIMELINE_OUT=$out/tl-$name timeout 40 $bin/kda-bench --log-level warn --library "$TL" --rows "$key" --ops "$op" \
    --samples 3 --calls 5 --out "$out/tl-$name.json" > "$out/tl-$name.log" 2>&1
  echo "timeline $name exit $?: $(ls "$out"/tl-$name-*.csv 2>/dev/null | wc -l) file(s)"
done
pack_logs call-d
AB_SHOW='\| (fwd|bwd) \|' ab tl-cost "$TL" "$bin/libkda.so" 60 'R2:g:off:saved' fwd,bwd; pack_logs call-d
find "$out" -name '*.log' -o -name '*.json' | grep -v results/ | xargs rm -f
