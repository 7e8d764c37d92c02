#!/usr/bin/env bash
# Session 30, device call B: v48 as it lands (slack 20/9) - the small rows' matrix (m2 and R2,
# every key, FP64 check of all heads at both decays, repeat check) and a finer slack sweep around
# call A's best (2/1 = 48 chunks and 5/2 = 60 of R2's 86-chunk sequence, against 20/9 = 53) on R2's
# saved forward, against v47.
set -u
. scripts/device-env.sh
export LIB=$bin/libkda.so HEAD=$bin/libkda-v47.so
pack_logs call-b
SMALL_TIMEOUT=200 scripts/device-matrix.sh small; pack_logs call-b
for s in 2/1 5/2 20/9; do
  KDA_O_SLACK=$s AB_SHOW='\| fwd \|' ab fine${s/\//-} "$LIB" "$HEAD" 45 'R2:*:*:saved' fwd
  pack_logs call-b
done
find "$out" -name '*.log' -o -name '*.json' | grep -v results/ | xargs rm -f
