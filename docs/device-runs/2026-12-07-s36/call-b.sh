#!/usr/bin/env bash
# Session 36, call B: the big rows of the matrix (1doc, 4doc: every key, head 0 checked against
# FP64, repeat check) of the library named by $1 (v54 = main, or v55 if call A lands it), for
# the issues' 1doc/4doc figures (the H200's are v47's, session 29). About 470 s on an H200; on
# an H100 1doc alone, for lack of time. Logs: $OUT.
set -u
. scripts/device-env.sh
unpack_xz
cp "$bin/libkda-${1:?usage: call-b.sh v54|v55}.so" "$bin/libkda.so"
pack_logs call-b
BIG_TIMEOUT=280 scripts/device-matrix.sh 1doc; pack_logs call-b
grep -q H200 "$out/card.txt" && { BIG_TIMEOUT=280 scripts/device-matrix.sh 4doc; pack_logs call-b; }
find "$out" -name '*.log' -o -name '*.json' | grep -v results/ | xargs rm -f
