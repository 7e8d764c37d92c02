#!/usr/bin/env bash
# Session 17, device call D: v27b (v26 + slow_sub_blocks with one barrier instead of four, in
# fwd_intra and bwd_grad; call C's w/u-in-rounds form reverted) against v26; v27c (v27b + the
# 16-column state pass with two input stages, libkda.so) against v27b; bits of v27c against the
# session's base.
set -u
. scripts/device-env.sh
HEAD=$bin/libkda-base.so
export LIB=$bin/libkda.so
kb="$bin/kda-bench --log-level warn"
same_bits own "" 'm2:*:*:*,R2:*:*:*,ragged:*:*:*'
gpu_tests v27c $LIB
timeout 200 $kb --library $bin/libkda-v27b.so --before $bin/libkda-v26.so \
  --rows 'R2:g:off:saved,R2:raw:fused:replay,m2:g:off:saved,4doc:g:off:replay,1doc:raw:fused:saved' \
  --ops fwd,bwd --stages --out "$out/ab-v27b.json" > "$out/ab-v27b.log" 2>&1
echo "A/B v27b vs v26 exit $?"; grep -E "^\| [0-9A-Za-z]+:" "$out/ab-v27b.log" | grep -v "0\.000"
timeout 150 $kb --library $LIB --before $bin/libkda-v27b.so \
  --rows 'R2:g:off:saved,R2:raw:fused:replay,m2:g:off:saved,m2:raw:fused:replay' \
  --ops fwd,bwd --stages --out "$out/ab-v27c.json" > "$out/ab-v27c.log" 2>&1
echo "A/B v27c vs v27b exit $?"; grep -E "^\| [0-9A-Za-z]+:" "$out/ab-v27c.log" | grep -v "0\.000"
sanitize 16
tar -C "$out" -czf "$out/call-d-logs.tgz" $(cd "$out" && ls *.log *.json) && (cd "$out" && rm -f *.log *.json)
