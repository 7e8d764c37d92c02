#!/usr/bin/env bash
# Session 7, device call C: the 12 big-row keys of the 32-key matrix not in the baseline (call B),
# on the build call B ended with (v7b in .carry/bin, or v7c if call B left its marker on this
# still-warm machine): fwd/bwd/fwd+bwd,
# check on 1 sampled head, both decays, repeat 2.
set -u
. scripts/device-env.sh
[ -f /tmp/kda-v7c-ok ] && cp .carry/v7c/libkda.so $bin/libkda.so && echo "running v7c"
slug=$($bin/kda-bench nightly --print-slug)
mkdir -p "$out/results/$slug"
timeout ${BIG_TIMEOUT:-500} $bin/kda-bench --log-level warn --ops fwd,bwd,fwd+bwd --check --check-heads 1 \
  --repeat-check 2 --force --rows '1doc:g:off:*,1doc:g:fused:replay,1doc:raw:*:*,4doc:g:off:saved,4doc:g:fused:*,4doc:raw:off:replay,4doc:raw:fused:replay' \
  --out "$out/results/$slug/matrix-big-rest.json" > "$out/matrix-big-rest.log" 2>&1
echo "big rest exit $?"
grep -hE "(fwd|bwd|fwd\+bwd) +median|DIFFERENT| FAIL" "$out/matrix-big-rest.log" | cut -c1-90
tar -C "$out" -czf "$out/call-c-logs.tgz" $(cd "$out" && ls *.log) && (cd "$out" && rm -f *.log)
