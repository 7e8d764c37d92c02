#!/usr/bin/env bash
# Session 19, device call A. v34 (the carried libkda.so): on the saved path the 16-column state
# pass leaves o to the new fwd_output pass (its programmatic dependent, per-tile flags). Against
# the session's start (b3f62c8, libkda-head.so): bits on every key of m2, R2, ragged and ragged
# with the V tile forced to 16, 32, 64; GPU tests (with the new saved/replay test and session 18's
# test refactor d7c554c); compute-sanitizer on m2 (V tile 16, both paths); FP64 on fresh inputs;
# A/B on R2 and m2; v34p2 (flags every 2 chunks) against v34.
set -u
. scripts/device-env.sh
HEAD=$bin/libkda-head.so
export LIB=$bin/libkda.so
check_build v34 16 32 64
sanitize 16
timeout 150 $bin/kda-bench --log-level warn --library $LIB --rows 'm2:*:*:*,R2:*:*:saved,ragged:*:*:saved' --ops fwd,bwd \
  --check --repeat-check 2 --no-timing --seed 20261207 --out "$out/fresh.json" > "$out/fresh.log" 2>&1
echo "fresh exit $?: $(grep -cw ok "$out/fresh.log") ok, $(grep -cw FAIL "$out/fresh.log") FAIL"
grep -wE "FAIL|DIFFERENT" "$out/fresh.log" | head -8
AB_SHOW='fwd|fwd_output|fwd_state' ab v34 $LIB $HEAD 240 'R2:*:*:saved,m2:*:*:saved,R2:g:off:replay,m2:raw:fused:replay' fwd,fwd+bwd
# v34p2: the flags published every 2 chunks instead of 8 (a shorter tail for fwd_output)
AB_SHOW='fwd|fwd_output|fwd_state' ab v34p2 $bin/libkda-v34p2.so $LIB 120 'R2:g:off:saved,R2:raw:fused:saved,m2:g:off:saved,m2:raw:fused:saved' fwd
tar -C "$out" -czf "$out/call-a-logs.tgz" $(cd "$out" && ls *.log *.json) && (cd "$out" && rm -f *.log *.json)
