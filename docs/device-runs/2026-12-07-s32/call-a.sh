#!/usr/bin/env bash
# Session 32, call A. Carried: libkda.so = 0f2d24e (kernels v49 + the o_first refactor, never run
# on a device), libkda-v48.so = fb4ae71 (v48), libkda-v51.so = v51 (bwd_grad as persistent CTAs,
# one an SM, taking item after item from a counter; each item's q, k and gate copies issued in
# stage 5 of the item before). After failed starts left under 900 s of device time, one short
# call: v51's checks before it is timed (same bits as v48 on every key of m2, R2, ragged, which
# also covers 0f2d24e's kernels between them; GPU tests incl. the timing tests' graph replay; a
# fresh seed against FP64 with a repeat check; memcheck, racecheck), then the A/B v51 - 0f2d24e
# on R2 (bwd and fwd+bwd, stage times). Logs: $OUT.
set -u
. scripts/device-env.sh
export LIB=$bin/libkda-v51.so HEAD=$bin/libkda-v48.so
pack_logs call-a
check_build v51; pack_logs call-a
gpu_timing_tests; pack_logs call-a
seed_check v51 2512068; pack_logs call-a
sanitize 16 memcheck racecheck; pack_logs call-a
AB_SHOW='bwd_grad|\| (bwd|fwd\+bwd) \|' ab v51-v49 "$LIB" "$bin/libkda.so" 80 'R2:*:*:*' bwd,fwd+bwd; pack_logs call-a
find "$out" -name '*.log' -o -name '*.json' | grep -v results/ | xargs rm -f
