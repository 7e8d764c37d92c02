#!/usr/bin/env bash
# Session 23, device call D (run inline, on the machine call B left warm): v39's timing tests,
# synccheck, and the bitwise repeat of every backward key of m2, R2 and ragged.
. scripts/device-env.sh; export LIB=$bin/libkda-v39.so; gpu_timing_tests; sanitize 16 synccheck
timeout 100 $bin/kda-bench --log-level warn --library "$LIB" --rows 'R2:*:*:*,m2:*:*:*,ragged:*:*:*' --ops bwd \
  --repeat-check 3 --no-timing --out "$out/repeat.json" > "$out/repeat.log" 2>&1
echo "repeat exit $?: $(grep -ci identical "$out/repeat.log") identical, $(grep -ci differ "$out/repeat.log") differ"
