#!/usr/bin/env bash
# Session 25, device call A: session 24's call E (never run) plus an FP64 check on fresh inputs.
# Carried: libkda.so = HEAD (c913d86: v44, 536ae5d, plus a comment), libkda-v39.so = d50d5bd.
#   FP64 check of v44 on fresh inputs (seed 2512061, m2 and R2, every key, fwd and bwd), the
#   matrix's small part (m2, R2: FP64 at the default seed, repeat, times) and the interleaved A/B
#   against v39 on R2 and m2 (fwd, bwd, fwd+bwd).
set -u
. scripts/device-env.sh
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
export LIB=$bin/libkda.so
timeout 120 $bin/kda-bench --log-level warn --library "$LIB" --rows 'R2:*:*:*,m2:*:*:*' --ops fwd,bwd \
  --check --seed 2512061 --no-timing --out "$out/check-seed2512061.json" > "$out/check-seed2512061.log" 2>&1
echo "FP64 check (v44) seed 2512061 exit $?"
bash scripts/device-matrix.sh small
timeout 200 $bin/kda-bench --log-level warn --library "$LIB" --before "$bin/libkda-v39.so" --rows 'R2:*:*:*,m2:*:*:*' \
  --ops fwd,bwd,fwd+bwd --out "$out/ab-v39.json" > "$out/ab-v39.log" 2>&1
echo "A/B against v39 exit $?"; grep -E "^\| [0-9A-Za-z]+:" "$out/ab-v39.log"
tar -C "$out" -czf "$out/call-a-logs.tgz" $(cd "$out" && ls *.log *.json) && (cd "$out" && rm -f *.log *.json)
