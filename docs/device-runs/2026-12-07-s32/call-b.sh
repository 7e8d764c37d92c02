#!/usr/bin/env bash
# Session 32, call B: call A (call-a.sh) never got a machine; with under 400 s of device time left,
# the least that lets v51 be judged. Carried as for call A (libkda.so = 0f2d24e, libkda-v48.so =
# fb4ae71, libkda-v51.so = v51). v51's checks before timing: same bits as v48 on every key of m2,
# R2, ragged; GPU tests; racecheck (v51 adds shared-memory hand-offs between items); a fresh seed
# against FP64 with a repeat check (the item counter's reset between calls); then the A/B v51 -
# 0f2d24e on R2's backward (stage times). Logs: $OUT.
set -u
. scripts/device-env.sh
export LIB=$bin/libkda-v51.so HEAD=$bin/libkda-v48.so
pack_logs call-b
check_build v51; pack_logs call-b
sanitize 16 racecheck; pack_logs call-b
seed_check v51 2512068; pack_logs call-b
AB_SHOW='bwd_grad|\| bwd \|' ab v51-v49 "$LIB" "$bin/libkda.so" 60 'R2:*:*:*' bwd; pack_logs call-b
find "$out" -name '*.log' -o -name '*.json' | grep -v results/ | xargs rm -f
