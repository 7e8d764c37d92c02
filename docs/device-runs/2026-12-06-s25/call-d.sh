#!/usr/bin/env bash
# Session 25, device call D (the session's last): v45 as landed - kg as a bf16 hi + lo pair in the
# state passes' h update, call B's lane bug mended, the 16-column pass with three chain stages and
# two output stages (h always in the 32-byte swizzle, u and exp(gamma_C) apart from the boxes).
# Carried: libkda.so = v45, libkda-v44.so = HEAD before it (c913d86). Logs are packed after every
# step, so a cut call still returns what ran.
set -u
. scripts/device-env.sh
pack() { tar -C "$out" -czf /tmp/call-d-logs.tgz --exclude='*.tgz' . && cp /tmp/call-d-logs.tgz "$out/call-d-logs.tgz"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
export LIB=$bin/libkda.so
gpu_tests v45 "$LIB"; pack
for s in 1 2512061 2512062; do
  timeout 100 $bin/kda-bench --log-level warn --library "$LIB" --rows 'R2:*:*:*,m2:*:*:*' --ops fwd,bwd \
    --check --seed $s --repeat-check 2 --no-timing --out "$out/check-v45-seed$s.json" > "$out/check-v45-seed$s.log" 2>&1
  echo "FP64 check v45 seed $s exit $?: $(grep -c FAIL "$out/check-v45-seed$s.log") FAIL, $(grep -c DIFFERENT "$out/check-v45-seed$s.log") DIFFERENT"
done
pack
ab v45-small "$LIB" "$bin/libkda-v44.so" 200 'R2:*:*:*,m2:*:*:*' fwd,bwd,fwd+bwd | grep -vE '/bwd_(reduce|dh)|/fwd_output'; pack
sanitize 16 memcheck racecheck; pack
bash scripts/device-matrix.sh small; pack
find "$out" -name '*.log' -o -name '*.json' | grep -v results/ | xargs rm -f
