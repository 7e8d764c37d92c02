#!/usr/bin/env bash
# Session 16, device call I: the final build (v23 + review commit) on fresh inputs (a seed not used
# before) against FP64, bitwise repeat, and its bits against call D's v23f library.
set -u
. scripts/device-env.sh
kb="$bin/kda-bench --log-level warn"
timeout 250 $kb --rows 'm2:*:*:*,R2:*:*:*,ragged:*:*:*' --ops fwd,bwd --check --repeat-check 2 --seed 20261204 \
  --no-timing --out "$out/fresh-small.json" > "$out/fresh-small.log" 2>&1
echo "fresh small exit $?: $(grep -c ' ok' "$out/fresh-small.log") ok, $(grep -c FAIL "$out/fresh-small.log") FAIL"
grep FAIL -B12 "$out/fresh-small.log" | grep -E "^accuracy|FAIL"; grep -c "identical" "$out/fresh-small.log"; grep -ci "differ" "$out/fresh-small.log"
timeout 200 $kb --rows '4doc:raw:off:saved,1doc:g:fused:replay' --ops fwd,bwd --check --check-heads 1 --repeat-check 2 \
  --seed 20261204 --no-timing --out "$out/fresh-big.json" > "$out/fresh-big.log" 2>&1
echo "fresh big exit $?: $(grep -c ' ok' "$out/fresh-big.log") ok, $(grep -c FAIL "$out/fresh-big.log") FAIL"
grep FAIL -B12 "$out/fresh-big.log" | grep -E "^accuracy|FAIL"
same_bits final "" 'm2:*:*:*,R2:*:*:*' $bin/libkda-v23.so
tar -C "$out" -czf "$out/call-i-logs.tgz" $(cd "$out" && ls *.log *.json) && (cd "$out" && rm -f *.log *.json)
