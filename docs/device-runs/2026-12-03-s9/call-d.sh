#!/usr/bin/env bash
# Session 9, device call D (run inline, recorded here): the 32-key matrix of v9b (.carry/bin):
# every key timed, checked against FP64 and repeated (scripts/device-matrix.sh). The big rows hit
# the 440 s limit during 4doc:raw:fused:saved's check; calls E and F ran the last two keys.
set -u
SMALL_TIMEOUT=130 BIG_TIMEOUT=440 bash scripts/device-matrix.sh
cd "$OUT" && tar -czf matrix-logs.tgz results *.log && rm -rf results *.log
