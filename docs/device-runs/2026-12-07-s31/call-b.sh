#!/usr/bin/env bash
# Session 31, call B: what lands after call A. Call A ran v50 = v49 + the o_first refactor +
# bwd_reduce as bwd_grad's programmatic dependent; the last part did not land (docs/perf-log.md,
# "Session 31"), so the landed kernels (libkda.so, HEAD) are v49 with the refactor, whose SASS
# matches call A's libraries kernel by kernel (the 16-column forward pass: v50's; bwd_grad and
# bwd_reduce: v49's). Their own checks: same bits as v48 (libkda-v48.so) on every key of m2, R2
# and ragged, the GPU tests; then the small matrix (m2 and R2, every key, whatever the card). (No
# A/B: call A timed these kernels; device time was short after failed starts.) Logs: $OUT (call-b).
set -u
. scripts/device-env.sh
export LIB=$bin/libkda.so HEAD=$bin/libkda-v48.so
pack_logs call-b
check_build v49; pack_logs call-b
SMALL_TIMEOUT=200 scripts/device-matrix.sh small; pack_logs call-b
find "$out" -name '*.log' -o -name '*.json' | grep -v results/ | xargs rm -f
