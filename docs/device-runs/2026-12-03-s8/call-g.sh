#!/usr/bin/env bash
# Session 8, device call G: the serial passes' chunk-tile copies as shared helpers
# (common/chunk_tile_copies.cuh; same instructions, other register allocation), the working tree
# in .carry/bin, against v8c (.carry/before/libkda-v8c.so): the same bits, the determinism GPU
# tests, and the serial passes' time.
set -u
. scripts/device-env.sh
B=.carry/before/libkda-v8c.so
kb="$bin/kda-bench --log-level warn"
timeout 60 $kb --before $B --same-bits --no-timing --ops fwd,bwd --decay normal,fast --check-heads 0 \
  --rows 'ragged:*:*:saved,m2:*:*:*,R2:*:*:saved' --out "$out/samebits.json" > "$out/samebits.log" 2>&1
echo "same-bits exit $?: $(grep -c DIFFERENT "$out/samebits.log") DIFFERENT, $(grep -c identical "$out/samebits.log") identical"
timeout 30 $bin/gpu_bwd_tests --gtest_filter='bwd_determinism.*' > "$out/gpu_bwd_determinism.log" 2>&1
echo "bwd determinism exit $?: $(grep -E '^\[  (PASSED|FAILED) ' "$out/gpu_bwd_determinism.log" | tr '\n' ' ')"
timeout 80 $kb --rows 'R2:g:off:saved,4doc:raw:off:saved' --ops fwd,bwd --stages --before $B \
  --out "$out/ab.json" > "$out/ab.log" 2>&1
echo "A/B exit $?"
grep -E "^\|" "$out/ab.log" | grep -E "fwd_state|bwd_dh|\| (fwd|bwd) \|"
