#!/usr/bin/env bash
# Session 20, device call B. The carried libkda.so: v37, only the last CTA of bwd_grad (beside
# bwd_dh) and of fwd_output (beside the state pass) waits for the pass to complete (before: every
# CTA, so a CTA done early held its SM until the pass ended); bwd_dh with one V tile a CTA by
# default, KDA_DH_NARROW_TILES=2 for v35's two. Against the session's start (libkda-head.so).
set -u
. scripts/device-env.sh
HEAD=$bin/libkda-head.so
export LIB=$bin/libkda.so
check_build v37 16
KDA_LIBRARY=$LIB timeout 120 $bin/gpu_timing_tests > "$out/gpu_timing_tests.log" 2>&1
echo "gpu_timing_tests exit $?: $(grep -E '^\[  (PASSED|FAILED) +\] [0-9]' "$out/gpu_timing_tests.log" | tr '\n' ' ')"
KDA_DH_NARROW_TILES=2 same_bits nt2 "" 'm2:*:*:*,R2:*:*:*'
sanitize 16
abq() { # NAME ROWS OPS: interleaved A/B without stage times
  timeout 200 $bin/kda-bench --log-level warn --library "$LIB" --before "$HEAD" --rows "$2" --ops "$3" \
    --out "$out/ab-$1.json" > "$out/ab-$1.log" 2>&1
  echo "A/B $1 exit $?"
  grep -E "^\| [0-9A-Za-z]+:" "$out/ab-$1.log"
}
abq v37 'R2:*:*:*,m2:*:*:*' fwd,bwd,fwd+bwd
KDA_DH_NARROW_TILES=2 abq v37-nt2 'R2:*:*:saved,m2:*:*:saved,R2:raw:fused:replay' bwd,fwd+bwd
# v34's every sequence apart again, now that fwd_output's blocks leave their SMs when done
KDA_O_APART_MIN_CHUNKS=1 timeout 100 $bin/kda-bench --log-level warn --library "$LIB" --rows 'R2:*:*:saved,m2:*:*:saved' \
  --ops fwd --out "$out/v37-apart1.json" > "$out/v37-apart1.log" 2>&1
echo "v37 apart1 exit $?"; grep -E "^\| [0-9A-Za-z]+:" "$out/v37-apart1.log"
tar -C "$out" -czf "$out/call-b-logs.tgz" $(cd "$out" && ls *.log *.json) && (cd "$out" && rm -f *.log *.json)
