#!/usr/bin/env bash
# Session 25, device call E (the budget's remainder): v45's FP64 check on every key of 4doc (one
# sampled head; the 64-column state pass carries kg_lo there). Carried: libkda.so = v45 (dfa0334).
set -u
. scripts/device-env.sh
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 200 $bin/kda-bench --log-level warn --rows '4doc:*:*:*' --ops fwd,bwd --check --check-heads 1 --no-timing \
  --out "$out/check-v45-4doc.json" > "$out/check-v45-4doc.log" 2>&1
echo "FP64 check v45 4doc exit $?: $(grep -c FAIL "$out/check-v45-4doc.log") FAIL, $(grep -c '^accuracy' "$out/check-v45-4doc.log") tables"
