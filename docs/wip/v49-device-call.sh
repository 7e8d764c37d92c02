#!/usr/bin/env bash
# For the next device session (written in session 30, not run: no device time was left): v49 -
# bwd_reduce over 8 blocks a head (16 columns each) with segments of 256 chunks instead of one
# block a head with segments of 64: R2's 257 chunks in one round of loads on 32 SMs instead of
# five rounds on 4. The same additions in the same order (the bits are
# the serial loop's). Then, on an H200 only, the small matrix of v49 (v48's forward).
# Carried: libkda.so = v49 (HEAD with docs/wip/v49-bwd-reduce-wide.patch applied), libkda-v48.so =
# HEAD without it (v48). Logs go to $OUT as call-d; rename to the session's call letter.
set -u
. scripts/device-env.sh
export LIB=$bin/libkda.so HEAD=$bin/libkda-v48.so
pack_logs call-d
check_build v49; pack_logs call-d
AB_SHOW='\| (bwd|fwd\+bwd) \||bwd_reduce' ab v49 "$LIB" "$HEAD" 90 'R2:raw:*:*,m2:raw:*:*' bwd,fwd+bwd; pack_logs call-d
sanitize 16 memcheck racecheck; pack_logs call-d
if grep -q H200 "$out/card.txt"; then SMALL_TIMEOUT=200 scripts/device-matrix.sh small; pack_logs call-d; fi
find "$out" -name '*.log' -o -name '*.json' | grep -v results/ | xargs rm -f
