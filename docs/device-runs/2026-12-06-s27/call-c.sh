#!/usr/bin/env bash
# Session 27, device call C: the matrix's 4doc part of v45 (completing the 32-key matrix with call
# B's small and 1doc parts), then 4doc's g keys (saved path: the replay path's gradients are the
# same bits) checked against FP64 on heads 0 - 15 at both decays, no timing - the heads the
# nightly's head 0 does not see (session 26 call B did the raw keys, with FLA beside them).
# Carried: libkda.so = v45 (9bde67f). Logs are packed after every step.
set -u
. scripts/device-env.sh
pack() { tar -C "$out" -czf /tmp/call-c-logs.tgz --exclude='*.tgz' . && cp /tmp/call-c-logs.tgz "$out/call-c-logs.tgz"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
bash scripts/device-matrix.sh 4doc; pack
timeout 250 $bin/kda-bench --log-level warn --rows '4doc:g:off:saved,4doc:g:fused:saved' --ops fwd,bwd --check \
  --check-heads "$(seq -s, 0 15)" --no-timing --out "$out/check-4doc-g-16heads.json" > "$out/check-4doc-g-16heads.log" 2>&1
echo "4doc g keys, heads 0-15 exit $?: $(grep -c FAIL "$out/check-4doc-g-16heads.log") FAIL"
grep -E "^accuracy|^  (o|dg) " "$out/check-4doc-g-16heads.log"
pack
find "$out" -name '*.log' -o -name '*.json' | grep -v results/ | xargs rm -f
