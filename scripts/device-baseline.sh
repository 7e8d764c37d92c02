#!/usr/bin/env bash
# Device run: a new nightly baseline for this GPU class with every seed row, both ops of the
# backward and the forward (docs/nightly.md): timing, accuracy on sampled heads, bitwise repeat.
# Writes $OUT/results/<gpu-class>/baseline.json; commit it under results/ with its command line.
set -u
. "$(dirname "$0")/device-env.sh"
slug=$($bin/kda-bench nightly --print-slug)
mkdir -p "$out/results/$slug"
timeout ${BASELINE_TIMEOUT:-540} $bin/kda-bench --log-level warn \
  --rows "${ROWS:-m2:*:*:saved,R2:g:off:saved,1doc:g:fused:saved,4doc:raw:off:saved,4doc:raw:fused:saved,4doc:g:off:replay}" \
  --ops fwd,bwd,fwd+bwd --check --check-heads "${CHECK_HEADS:-2}" --repeat-check 2 \
  --out "$out/results/$slug/baseline.json" --force > "$out/baseline.log" 2>&1
echo "baseline exit $? (1 = some check failed its threshold: see the log; the document is written either way)"
grep -E " median " "$out/baseline.log" | cut -c1-70
