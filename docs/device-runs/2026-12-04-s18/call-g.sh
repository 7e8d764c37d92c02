#!/usr/bin/env bash
# Session 18, device call G: the landed kernels (v32, e53078c) with kda_bwd's new check of the raw
# form's x alignment: both GPU test binaries (the new bwd_arguments test runs for the first time),
# then the 32-key matrix's small and 4doc parts (m2, R2, 4doc x 8 keys: fwd, bwd, fwd+bwd timed,
# FP64 check, bitwise repeat) for the closing note; 1doc stays v26's (session 17's matrix).
set -u
. scripts/device-env.sh
gpu_tests v32
bash scripts/device-matrix.sh small 4doc
tar -C "$out" -czf "$out/call-g-logs.tgz" $(cd "$out" && ls *.log *.json 2>/dev/null) && (cd "$out" && rm -f *.log *.json)
