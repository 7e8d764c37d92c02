#!/usr/bin/env bash
# Session 17, device call L: v29 (the 16-column bwd_dh stores dh, dv_new and its lo half through
# the copy engine, one thread, three boxes a chunk; flags after the stores complete) against v28b
# (libkda-v28b.so): bits (bwd_grad reads these tiles beside the pass), GPU tests, repeat,
# sanitizers, A/B.
set -u
. scripts/device-env.sh
HEAD=$bin/libkda-v28b.so
export LIB=$bin/libkda.so
check_build v29 16
timeout 90 $bin/kda-bench --log-level warn --rows 'm2:*:*:*,R2:*:*:*' --ops bwd --repeat-check 3 --no-timing \
  --out "$out/repeat.json" > "$out/repeat.log" 2>&1
echo "repeat exit $?: $(grep -c identical "$out/repeat.log") identical, $(grep -ci differ "$out/repeat.log") differ"
ab v29 $LIB $HEAD 150 'R2:g:off:saved,R2:raw:fused:replay,m2:g:off:saved,m2:raw:fused:replay' bwd,fwd+bwd
sanitize 16
tar -C "$out" -czf "$out/call-l-logs.tgz" $(cd "$out" && ls *.log *.json) && (cd "$out" && rm -f *.log *.json)
