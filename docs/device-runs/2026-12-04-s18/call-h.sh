#!/usr/bin/env bash
# Session 18, device call H: the 1doc part of v32's 32-key matrix (call G ran small and 4doc), so
# that the three parts merge into the new nightly baseline.
set -u
. scripts/device-env.sh
bash scripts/device-matrix.sh 1doc
tar -C "$out" -czf "$out/call-h-logs.tgz" $(cd "$out" && ls *.log *.json 2>/dev/null) && (cd "$out" && rm -f *.log *.json)
