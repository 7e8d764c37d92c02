#!/usr/bin/env bash
# Session 23, device call E (inline, same warm machine): v39 against v38c on four big-row keys, bwd.
. scripts/device-env.sh
timeout 170 $bin/kda-bench --log-level warn --library $bin/libkda-v39.so --before $bin/libkda.so \
  --rows '4doc:g:off:saved,1doc:raw:fused:saved,4doc:raw:off:replay,1doc:g:fused:replay' --ops bwd --samples 9 \
  --out "$out/ab-big-v39.json" > "$out/ab-big-v39.log" 2>&1
echo "A/B big exit $?"; grep -E "^\| [0-9A-Za-z]+:" "$out/ab-big-v39.log"
