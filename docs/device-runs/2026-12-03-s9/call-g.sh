#!/usr/bin/env bash
# Session 9, device call G (run inline, recorded here): kda-bench nightly against the new 32-key
# baseline (v9b's matrix), three rows, with the v9b build in .carry/bin: "no regression" (exit 0).
# Its 495 "in the baseline, not checked now" notes for the 29 rows left out led to commit 62f5926
# (one note per left-out row).
set -u
. scripts/device-env.sh
timeout 150 $bin/kda-bench --log-level warn nightly --baseline results/H200-sm_90-132SMs/baseline.json \
  --results-dir $out/results --rows 'm2:g:off:saved,m2:raw:fused:saved,R2:g:off:saved' > $out/nightly.log 2>&1
echo "nightly exit $?"
