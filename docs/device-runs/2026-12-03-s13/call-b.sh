#!/usr/bin/env bash
# Session 13, device call B: v20b, call A's v20 with the chain's shared-memory addresses formed
# once per lane (constant offsets per k step), B-fragments loaded into consecutive registers (no
# moves before each mma) and the h^T update's hi and lo products of four row blocks apart (an
# accumulator's next mma eight mma later). Call A's v20 issued about 1800 instructions a chunk
# step on its chain warp, v20b about 730 (192 of them mma).
#   .carry/bin/libkda.so            v20b
#   .carry/before/libkda-head.so    HEAD (v19, commit 9d31f28)
# (Rewritten after the run to call scripts/device-env.sh's same_bits and sanitize, which hold the
# same commands; the sanitizer timeout there is 120 s.)
set -u
. scripts/device-env.sh
HEAD=.carry/before/libkda-head.so
kb="$bin/kda-bench --log-level warn"
same_bits own "" 'm2:*:*:*,R2:*:*:saved'
for vt in 16 64; do same_bits vt$vt $vt 'ragged:*:*:*'; done
for vt in 16 32 64; do
  KDA_STATE_VTILE=$vt timeout 100 $kb --rows 'R2:g:off:saved' --ops fwd --stages --before $HEAD \
    --out "$out/ab-R2-vt$vt.json" > "$out/ab-R2-vt$vt.log" 2>&1
  echo "A/B R2 vt$vt exit $?"; grep -E "^\|" "$out/ab-R2-vt$vt.log" | grep -E "\| (fwd|fwd/fwd_state) \|"
done
timeout 200 $kb --rows '4doc:g:off:replay,1doc:g:fused:saved' --ops fwd --stages --before $HEAD \
  --out "$out/ab-big.json" > "$out/ab-big.log" 2>&1
echo "A/B big rows exit $?"
grep -E "^\|" "$out/ab-big.log" | grep -E "\| (fwd|fwd/fwd_state) \|"
tar -C "$out" -czf "$out/call-b-logs.tgz" $(cd "$out" && ls *.log *.json) && (cd "$out" && rm -f *.log *.json)
