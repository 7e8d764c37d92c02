#!/usr/bin/env bash
# Session 17, device call A: v26 (fwd_intra's w/u products balanced over the warps, the qg/kg
# writes shared 1:1:3:3, beta k' exp(gamma) beside the diagonal inverse; bits unchanged by
# design) against the session's base (1830838, v23); and, for the record, the 16-column state
# pass with two input stages instead of three (libkda-v26-st2.so: 146 KB of shared memory instead
# of 207, the precondition of sharing an SM with an intra CTA).
set -u
. scripts/device-env.sh
HEAD=$bin/libkda-base.so
export LIB=$bin/libkda.so
check_build v26
ab v26 $LIB $HEAD 240 'R2:g:off:saved,R2:raw:fused:replay,m2:g:off:saved,4doc:g:off:replay,1doc:raw:fused:saved' fwd,bwd
ab st2 $bin/libkda-v26-st2.so $LIB 90 'R2:g:off:saved,m2:g:off:saved' fwd
sanitize 16 memcheck racecheck
tar -C "$out" -czf "$out/call-a-logs.tgz" $(cd "$out" && ls *.log *.json) && (cd "$out" && rm -f *.log *.json)
