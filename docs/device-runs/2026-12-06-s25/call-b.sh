#!/usr/bin/env bash
# Session 25, device call B: v45 (kg as a bf16 hi + lo pair in the state passes' h update; the
# 16-column pass with two chain stages). Carried: libkda.so = v45 (working tree), libkda-v44.so =
# HEAD (c913d86). v45 changes output bits on purpose, so no same-bits run: GPU tests (V-tile and
# path identity included), FP64 checks of both builds on m2 and R2 at seeds 1, 2512061, 2512062
# (v45 with a repeat), A/B of times with stage times (m2, R2), sanitizers, big rows last.
set -u
. scripts/device-env.sh
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
export LIB=$bin/libkda.so
gpu_tests v45 "$LIB"
for s in 1 2512061 2512062; do
  for v in v45 v44; do
    lib=$LIB; rep=(--repeat-check 2); [ $v = v44 ] && { lib=$bin/libkda-v44.so; rep=(); }
    timeout 100 $bin/kda-bench --log-level warn --library "$lib" --rows 'R2:*:*:*,m2:*:*:*' --ops fwd,bwd \
      --check --seed $s "${rep[@]}" --no-timing --out "$out/check-$v-seed$s.json" > "$out/check-$v-seed$s.log" 2>&1
    echo "FP64 check $v seed $s exit $?: $(grep -c FAIL "$out/check-$v-seed$s.log") FAIL, $(grep -c DIFFERENT "$out/check-$v-seed$s.log") DIFFERENT"
  done
done
ab v45-small "$LIB" "$bin/libkda-v44.so" 160 'R2:*:*:*,m2:*:*:*' fwd,bwd
sanitize 16 memcheck racecheck
timeout 150 $bin/kda-bench --log-level warn --library "$LIB" --rows '4doc:g:off:saved,1doc:raw:fused:replay' --ops fwd,bwd \
  --check --check-heads 2 --no-timing --out "$out/check-v45-big.json" > "$out/check-v45-big.log" 2>&1
echo "FP64 check v45 big exit $?: $(grep -c FAIL "$out/check-v45-big.log") FAIL"
ab v45-big "$LIB" "$bin/libkda-v44.so" 150 '4doc:g:off:saved,1doc:raw:fused:replay' fwd,bwd --samples 9
tar -C "$out" -czf "$out/call-b-logs.tgz" $(cd "$out" && ls *.log *.json) && (cd "$out" && rm -f *.log *.json)
