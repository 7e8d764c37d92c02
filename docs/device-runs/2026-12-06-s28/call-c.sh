#!/usr/bin/env bash
# Session 28, device call C (after call B, on the same H200): the matrix's 4doc part of v45,
# completing the 32-key H200 matrix. Carried: .carry/bin (libkda.so = v45).
set -u
. scripts/device-env.sh
pack() { tar -C "$out" -czf /tmp/call-c-logs.tgz --exclude='*.tgz' . && cp /tmp/call-c-logs.tgz "$out/call-c-logs.tgz"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
bash scripts/device-matrix.sh 4doc; pack
find "$out" -name '*.log' -o -name '*.json' | grep -v results/ | xargs rm -f
