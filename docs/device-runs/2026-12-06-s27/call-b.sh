#!/usr/bin/env bash
# Session 27, device call B: the matrix's small and 1doc parts of v45 (HEAD's kernels; v46 was
# slower and is not landed), the first half of a new nightly baseline: v45 changed output bits
# on purpose and v35 - v45 changed the times, so results/<gpu>/baseline.json (v34b's, H200) no
# longer describes the kernels. (Session 26's call A ran the same parts; its files were lost.)
# Carried: libkda.so = v45 (9bde67f). Logs are packed after every step.
set -u
. scripts/device-env.sh
pack() { tar -C "$out" -czf /tmp/call-b-logs.tgz --exclude='*.tgz' . && cp /tmp/call-b-logs.tgz "$out/call-b-logs.tgz"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
bash scripts/device-matrix.sh small 1doc; pack
find "$out" -name '*.log' -o -name '*.json' | grep -v results/ | xargs rm -f
