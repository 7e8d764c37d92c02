#!/usr/bin/env bash
# Session 34, call D. Carried: libkda-v52.so = main at c9f8166; libkda-v53b.so = v53 whose fused
# forms keep q, k and the gate in one group (gate first, no wait and barrier of their own before
# the row norms); libkda-v53c.so = the same, but the fused forms' copies in v52's order (q, k, then
# the gate; g:fused's bwd_grad SASS is v52's). The forms without the norm are v53's SASS in both
# (call C timed them). Same bits as v52 (m2, R2, ragged), GPU tests, the A/B of each against v52
# on R2's fused keys, then racecheck of v53b. Logs: $OUT.
set -u
. scripts/device-env.sh
export HEAD=$bin/libkda-v52.so
pack_logs call-d
for v in v53b v53c; do
  LIB=$bin/libkda-$v.so same_bits "$v" "" 'm2:*:*:*,R2:*:*:*,ragged:*:*:*'
  gpu_tests "$v" "$bin/libkda-$v.so"; pack_logs call-d
done
for v in v53b v53c; do
  AB_SHOW='fwd_intra|bwd_grad|\| (bwd|fwd\+bwd) \|' ab $v-v52 "$bin/libkda-$v.so" "$HEAD" 70 'R2:*:fused:*' bwd,fwd+bwd; pack_logs call-d
done
LIB=$bin/libkda-v53b.so sanitize 16 racecheck; pack_logs call-d
find "$out" -name '*.log' -o -name '*.json' | grep -v results/ | xargs rm -f
