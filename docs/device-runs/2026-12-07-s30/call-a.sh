#!/usr/bin/env bash
# Session 30, device call A: v48 - each sequence shorter than the longest keeps o in the 16-column
# state pass for (longest - n) * 20 / 9 of its last chunks (KDA_O_SLACK=NUM/DEN; 0/0 is v47's
# rule), so that every chain can end with the longest one's (perf-log "Session 30"). No bit
# changes: o comes from the same products in the same order wherever it is formed.
# Carried: libkda.so = v48 (working tree over ff58c44), libkda-v47.so = ff58c44's (v47),
# libkda-tl.so = v48 built with -DKDA_TIMELINE=ON (the fixed timeline build's first run).
set -u
. scripts/device-env.sh
export LIB=$bin/libkda.so HEAD=$bin/libkda-v47.so
pack_logs call-a
check_build v48 16 32; pack_logs call-a
seed_check v48 2512065; pack_logs call-a # fresh inputs: no earlier session used this seed
# the slack: the saved keys' forward against v47 (which ignores the variable); 0/0 must be v47
for s in 0/0 1/1 20/9 3/1 4/1; do
  KDA_O_SLACK=$s AB_SHOW='\| fwd \||fwd_state|fwd_output' ab slack${s/\//-} "$LIB" "$HEAD" 60 'R2:*:*:saved,m2:*:*:saved' fwd
  pack_logs call-a
done
ab v48-small "$LIB" "$HEAD" 200 'R2:*:*:*,m2:*:*:*' fwd,bwd,fwd+bwd | grep -vE '/fwd_intra|/bwd_intra'; pack_logs call-a
TL=$bin/libkda-tl.so
for run in R2:g:off:saved/fwd+bwd R2:raw:fused:saved/fwd+bwd R2:g:off:replay/fwd+bwd; do
  key=${run%/*} op=${run#*/}
  name=$(echo "$key" | tr ':' '-')-${op/+/-}
  KDA_TIMELINE_OUT=$out/tl-$name timeout 40 $bin/kda-bench --log-level warn --library "$TL" --rows "$key" --ops "$op" \
    --samples 3 --calls 5 --out "$out/tl-$name.json" > "$out/tl-$name.log" 2>&1
  echo "timeline $name exit $?: $(ls "$out"/tl-$name-*.csv 2>/dev/null | wc -l) file(s)"
done
pack_logs call-a
sanitize 16 memcheck racecheck; pack_logs call-a
find "$out" -name '*.log' -o -name '*.json' | grep -v results/ | xargs rm -f
