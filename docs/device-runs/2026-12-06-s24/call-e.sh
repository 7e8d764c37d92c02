#!/usr/bin/env bash
# Session 24, device call E: the landed build (libkda.so = v44, 536ae5d): the matrix's small part
# (m2, R2; FP64 checks, repeat) and A/B against v39 (libkda-v39.so = d50d5bd) on R2 and m2, fwd,
# bwd, fwd+bwd: the session's closing figures.
set -u
. scripts/device-env.sh
nvidia-smi --query-gpu=name --format=csv,noheader
export LIB=$bin/libkda.so
bash scripts/device-matrix.sh small
timeout 200 $bin/kda-bench --log-level warn --library "$LIB" --before "$bin/libkda-v39.so" --rows 'R2:*:*:*,m2:*:*:*' \
  --ops fwd,bwd,fwd+bwd --out "$out/ab-v39.json" > "$out/ab-v39.log" 2>&1
echo "A/B against v39 exit $?"; grep -E "^\| [0-9A-Za-z]+:" "$out/ab-v39.log"
tar -C "$out" -czf "$out/call-e-logs.tgz" $(cd "$out" && ls *.log *.json) && (cd "$out" && rm -f *.log *.json)
