#!/usr/bin/env bash
# Session 16, device calls E and F: the 32-key matrix of v23 (commit b119c79), the new nightly
# baseline: `call-e.sh small 1doc`, then `call-e.sh 4doc`.
set -u
. scripts/device-env.sh
$bin/kda-bench --version 2>/dev/null | head -2
bash scripts/device-matrix.sh "$@"
tar -C "$out" -czf "$out/matrix-logs-$(IFS=-; echo "$*").tgz" $(cd "$out" && ls *.log) && (cd "$out" && rm -f *.log)
