#!/usr/bin/env bash
# Session 32, call C: the last try, with 269 s of device time left: whether v51 keeps every bit and
# what it does to R2's backward, so that the next session knows whether to finish it. Not enough
# to land it (racecheck, memcheck, the fresh seed and the timing tests stay for later). Carried as
# for calls A and B. Logs: $OUT.
set -u
. scripts/device-env.sh
export LIB=$bin/libkda-v51.so HEAD=$bin/libkda-v48.so
pack_logs call-c
check_build v51; pack_logs call-c
AB_SHOW='bwd_grad|\| bwd \|' ab v51-v49 "$LIB" "$bin/libkda.so" 60 'R2:*:*:*' bwd; pack_logs call-c
find "$out" -name '*.log' -o -name '*.json' | grep -v results/ | xargs rm -f
