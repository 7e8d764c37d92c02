#!/usr/bin/env bash
# Session 10, device call D: the matrix's last part (4doc, all 8 variants) of the kept build
# (v10b + v11, .carry/bin/libkda.so; call C ran m2 + R2 and 1doc).
set -u
. scripts/device-env.sh
md5sum $bin/libkda.so
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$out/gpu.txt" 2>&1
bash scripts/device-matrix.sh 4doc
tar -C "$out" -czf "$out/call-d-logs.tgz" $(cd "$out" && ls *.log *.txt) && (cd "$out" && rm -f *.log *.txt)
