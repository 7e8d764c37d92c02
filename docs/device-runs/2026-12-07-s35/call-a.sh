#!/usr/bin/env bash
# Session 35, call A. Carried: libkda.so = main's kernels (v53b; SASS identical to b118476's build).
# The checks v52/v53 still lacked (FP64 on a fresh seed with repeat, memcheck), then the small
# matrix (m2, R2) and 1doc on whatever card came, for target-card figures if it is an H200.
# Logs: $OUT.
set -u
. scripts/device-env.sh
export LIB=$bin/libkda.so
pack_logs call-a
seed_check main 2512069; pack_logs call-a
sanitize 16 memcheck; pack_logs call-a
SMALL_TIMEOUT=150 scripts/device-matrix.sh small; pack_logs call-a
BIG_TIMEOUT=280 scripts/device-matrix.sh 1doc; pack_logs call-a
find "$out" -name '*.log' -o -name '*.json' | grep -v results/ | xargs rm -f
