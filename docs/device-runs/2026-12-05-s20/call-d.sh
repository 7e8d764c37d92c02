#!/usr/bin/env bash
# Session 20, device call D. The carried libkda.so: v38, on the replay path bwd_dh runs beside
# bwd_state_replay (its programmatic dependent, waiting per chunk for the intra stage's flags;
# exp(gamma_C) now by the producer's copy engine in the 16-column bwd_dh), and bwd_grad waits for
# the state pass's flags too. Bits and checks against the session's start (libkda-head.so), A/B
# against v37 (libkda-v37.so, commit 955f7d4).
set -u
. scripts/device-env.sh
HEAD=$bin/libkda-head.so
export LIB=$bin/libkda.so
check_build v38 16
gpu_timing_tests
timeout 120 $bin/kda-bench --log-level warn --library "$LIB" --rows 'R2:*:*:replay,m2:*:*:replay,ragged:*:*:replay' \
  --ops bwd --repeat-check 3 --no-timing --out "$out/repeat.json" > "$out/repeat.log" 2>&1
echo "repeat exit $?: $(grep -ci identical "$out/repeat.log") identical lines, $(grep -ci differ "$out/repeat.log") differ lines"
sanitize 16
timeout 200 $bin/kda-bench --log-level warn --library "$LIB" --before "$bin/libkda-v37.so" --rows 'R2:*:*:*,m2:*:*:*' \
  --ops bwd,fwd+bwd --out "$out/ab-v38.json" > "$out/ab-v38.log" 2>&1
echo "A/B v38 exit $?"; grep -E "^\| [0-9A-Za-z]+:" "$out/ab-v38.log"
tar -C "$out" -czf "$out/call-d-logs.tgz" $(cd "$out" && ls *.log *.json) && (cd "$out" && rm -f *.log *.json)
