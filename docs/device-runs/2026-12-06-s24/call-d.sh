#!/usr/bin/env bash
# Session 24, device call D (inline, on the machine call C left warm): v44's GPU tests, memcheck and
# racecheck, and v44 against v43 on four big-row keys (bwd, 9 samples).
. scripts/device-env.sh; export LIB=$bin/libkda-v44.so; gpu_tests v44 $LIB; sanitize 16 memcheck racecheck
timeout 150 $bin/kda-bench --log-level warn --library $LIB --before $bin/libkda.so \
  --rows '4doc:g:off:saved,1doc:raw:fused:saved,4doc:raw:off:replay,1doc:g:fused:replay' --ops bwd --samples 9 \
  --out $out/ab-big-v44.json > $out/ab-big-v44.log 2>&1
echo "big exit $?"; grep -E "^\| [0-9A-Za-z]+:" $out/ab-big-v44.log
