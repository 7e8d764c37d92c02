#!/usr/bin/env bash
# Session 26, device call A: v45 (ce2326e) on the H200 for the first time - the GPU tests, then the
# matrix's small and 1doc parts (scripts/device-matrix.sh), the first half of a new nightly
# baseline (v45 changed output bits; results/H200-sm_90-132SMs/baseline.json is v34b's).
# Carried: libkda.so = v45. Logs are packed after every step, so a cut call still returns what ran.
set -u
. scripts/device-env.sh
pack() { tar -C "$out" -czf /tmp/call-a-logs.tgz --exclude='*.tgz' . && cp /tmp/call-a-logs.tgz "$out/call-a-logs.tgz"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
gpu_tests v45; pack
bash scripts/device-matrix.sh small 1doc; pack
find "$out" -name '*.log' -o -name '*.json' | grep -v results/ | xargs rm -f
