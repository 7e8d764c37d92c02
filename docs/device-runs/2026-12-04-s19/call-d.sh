#!/usr/bin/env bash
# Session 19, device call D: the landed kernels (v34b, 3a4859a): the 32-key matrix's small part
# (m2, R2 x 8 keys: fwd, bwd, fwd+bwd timed, FP64 check, bitwise repeat) for the closing note;
# 1doc and 4doc stay v32's (call C: their forward unchanged, 0.999 - 1.008).
set -u
. scripts/device-env.sh
bash scripts/device-matrix.sh small
tar -C "$out" -czf "$out/call-d-logs.tgz" $(cd "$out" && ls *.log *.json 2>/dev/null) && (cd "$out" && rm -f *.log *.json)
