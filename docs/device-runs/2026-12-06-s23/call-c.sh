#!/usr/bin/env bash
# Session 23, device call C: call A cut to the session's last ~8 minutes of device time, the checks
# needed to land v38c + v39 first. Carried: libkda-v39.so = v38c + v39 (the build to land),
# libkda.so = v38c alone, libkda-v37.so = v37 (e7cb4eb). Bits of v39 against v37 (every key of
# m2, R2, ragged; ragged with the V tile forced to 16, the launch v38c touched), GPU tests, A/B of
# R2's bwd against v38c with stage times, memcheck and racecheck, FP64 on seed 2312061.
set -u
. scripts/device-env.sh
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
HEAD=$bin/libkda-v37.so
export LIB=$bin/libkda-v39.so
check_build v39 16
ab v39-R2 "$LIB" "$bin/libkda.so" 120 'R2:*:*:*' bwd
sanitize 16 memcheck racecheck
timeout 90 $bin/kda-bench --log-level warn --library "$LIB" --rows 'R2:*:*:*,m2:*:*:*' --ops fwd,bwd \
  --check --seed 2312061 --no-timing --out "$out/check-seed2312061.json" > "$out/check-seed2312061.log" 2>&1
echo "FP64 check (v39) seed 2312061 exit $?"
tar -C "$out" -czf "$out/call-c-logs.tgz" $(cd "$out" && ls *.log *.json 2>/dev/null) && (cd "$out" && rm -f *.log *.json)
