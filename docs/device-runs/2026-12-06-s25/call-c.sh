#!/usr/bin/env bash
# Session 25, device call C: v45 with call B's bug mended (the 32/64-column passes without o had
# lanes 4-6 copy kg_lo boxes too: more bytes than the barrier expected, a hang) and a variant of its
# 16-column pass with three chain stages and one output stage (libkda-c3o1.so), to tell the cost of
# two chain stages from that of the extra products. Carried: libkda.so = v45, libkda-v44.so = HEAD.
set -u
. scripts/device-env.sh
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
export LIB=$bin/libkda.so
gpu_tests v45 "$LIB"
ab c3o1-R2 "$bin/libkda-c3o1.so" "$bin/libkda-v44.so" 80 'R2:g:off:saved,R2:g:off:replay' fwd,bwd
ab v45-R2 "$LIB" "$bin/libkda-v44.so" 80 'R2:g:off:saved,R2:g:off:replay' fwd,bwd
timeout 100 $bin/kda-bench --log-level warn --library "$LIB" --rows '4doc:g:off:saved,1doc:raw:fused:replay' --ops fwd,bwd \
  --check --check-heads 2 --no-timing --out "$out/check-v45-big.json" > "$out/check-v45-big.log" 2>&1
echo "FP64 check v45 big exit $?: $(grep -c FAIL "$out/check-v45-big.log") FAIL"
AB_SHOW='fwd|state' ab v45-big "$LIB" "$bin/libkda-v44.so" 120 '4doc:g:off:saved,1doc:raw:fused:replay' fwd,bwd --samples 9
tar -C "$out" -czf "$out/call-c-logs.tgz" $(cd "$out" && ls *.log *.json) && (cd "$out" && rm -f *.log *.json)
