#!/usr/bin/env bash
# Session 17, device call C: v27 (fwd_intra's w and u by row blocks inside the inverse's rounds,
# on the warps each round leaves free; slow_sub_blocks with one barrier instead of four, in
# fwd_intra and bwd_grad) against v26 (libkda-v26.so), bits against the session's base.
set -u
. scripts/device-env.sh
HEAD=$bin/libkda-base.so
export LIB=$bin/libkda.so
kb="$bin/kda-bench --log-level warn"
same_bits own "" 'm2:*:*:*,R2:*:*:*,ragged:*:*:*'
gpu_tests v27 $LIB
timeout 240 $kb --library $LIB --before $bin/libkda-v26.so \
  --rows 'R2:g:off:saved,R2:raw:fused:replay,m2:g:off:saved,4doc:g:off:replay,1doc:raw:fused:saved' \
  --ops fwd,bwd --stages --out "$out/ab-v27.json" > "$out/ab-v27.log" 2>&1
echo "A/B v27 vs v26 exit $?"; grep -E "^\| [0-9A-Za-z]+:" "$out/ab-v27.log" | grep -v "0\.000"
sanitize 16
tar -C "$out" -czf "$out/call-c-logs.tgz" $(cd "$out" && ls *.log *.json) && (cd "$out" && rm -f *.log *.json)
