#!/usr/bin/env bash
# Session 19, device call B. v34b (the carried libkda.so): fwd_output takes o only for the saved
# path's long sequences (at least 4/5 of the longest one's chunks; KDA_O_APART_MIN_CHUNKS
# overrides), and a stage timed alone is launched plainly (call A's fwd_state stage times
# overlapped consecutive launches). Against the session's start (libkda-head.so): bits, GPU
# tests, sanitizers, A/B with the default split and with every sequence apart (=1).
set -u
. scripts/device-env.sh
HEAD=$bin/libkda-head.so
export LIB=$bin/libkda.so
check_build v34b 16
sanitize 16
AB_SHOW='fwd|fwd_output|fwd_state' ab v34b $LIB $HEAD 240 'R2:*:*:saved,m2:*:*:saved,ragged:g:off:saved' fwd,fwd+bwd
export KDA_O_APART_MIN_CHUNKS=1
AB_SHOW='fwd|fwd_output|fwd_state' ab v34b-all $LIB $HEAD 90 'R2:g:off:saved,m2:g:off:saved' fwd
unset KDA_O_APART_MIN_CHUNKS
tar -C "$out" -czf "$out/call-b-logs.tgz" $(cd "$out" && ls *.log *.json) && (cd "$out" && rm -f *.log *.json)
