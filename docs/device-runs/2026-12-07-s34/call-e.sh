#!/usr/bin/env bash
# Session 34, call E: the small matrix (m2 and R2, every key; FP64 check at both decays, repeat)
# of the landed kernels, v53b (libkda-v53b.so, put in as the carried libkda.so). Logs: $OUT.
set -u
cp .carry/bin/libkda-v53b.so .carry/bin/libkda.so
. scripts/device-env.sh
pack_logs call-e
SMALL_TIMEOUT=150 scripts/device-matrix.sh small; pack_logs call-e
find "$out" -name '*.log' -o -name '*.json' | grep -v results/ | xargs rm -f
