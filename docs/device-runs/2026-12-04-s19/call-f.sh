#!/usr/bin/env bash
# Session 19, device call F: the landed kernels (v34b, 3a4859a; the carried libkda.so of calls
# C and D): the 32-key matrix's 1doc and 4doc parts, to join call D's small part as the new
# nightly baseline.
set -u
. scripts/device-env.sh
BIG_TIMEOUT=280 bash scripts/device-matrix.sh 1doc 4doc
tar -C "$out" -czf "$out/call-f-logs.tgz" $(cd "$out" && ls *.log *.json 2>/dev/null) && (cd "$out" && rm -f *.log *.json)
