#!/usr/bin/env bash
# Session 28, device call B (only where call A's card was an H200): the matrix's small and 1doc parts
# of v45, the first half of a new H200 nightly baseline (results/H200-sm_90-132SMs/ holds v34b's, from
# before v35 - v45). Carried: .carry/bin (libkda.so = v45). Logs are packed after every step.
set -u
. scripts/device-env.sh
pack() { tar -C "$out" -czf /tmp/call-b-logs.tgz --exclude='*.tgz' . && cp /tmp/call-b-logs.tgz "$out/call-b-logs.tgz"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
bash scripts/device-matrix.sh small 1doc; pack
find "$out" -name '*.log' -o -name '*.json' | grep -v results/ | xargs rm -f
