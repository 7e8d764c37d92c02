#!/usr/bin/env bash
# Session 27, device call A: v46 - the 16-column serial passes load the A fragments that come from
# the copy engine alone (fwd: w, kg, kg_lo, u; bwd_dh: kg, w^T) before the barriers that publish
# h / v_new (dh / dv_new), so that only those tiles' own fragments load on the chain. Same products
# in the same order: the bits must equal v45's.
# Carried: libkda.so = v46 (working tree over 9bde67f), libkda-v45.so = HEAD (9bde67f = v45).
# Logs are packed after every step, so a cut call still returns what ran.
set -u
. scripts/device-env.sh
pack() { tar -C "$out" -czf /tmp/call-a-logs.tgz --exclude='*.tgz' . && cp /tmp/call-a-logs.tgz "$out/call-a-logs.tgz"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
export LIB=$bin/libkda.so HEAD=$bin/libkda-v45.so
check_build v46 16 32; pack
s=2512063 # fresh inputs: no earlier session used this seed
timeout 100 $bin/kda-bench --log-level warn --library "$LIB" --rows 'R2:*:*:*,m2:*:*:*' --ops fwd,bwd \
  --check --seed $s --repeat-check 2 --no-timing --out "$out/check-v46-seed$s.json" > "$out/check-v46-seed$s.log" 2>&1
echo "FP64 check v46 seed $s exit $?: $(grep -c FAIL "$out/check-v46-seed$s.log") FAIL, $(grep -c DIFFERENT "$out/check-v46-seed$s.log") DIFFERENT"
pack
ab v46-small "$LIB" "$HEAD" 200 'R2:*:*:*,m2:*:*:*' fwd,bwd,fwd+bwd | grep -vE '/bwd_(reduce|grad)|/fwd_output|/fwd_intra|/bwd_intra'; pack
sanitize 16 memcheck racecheck; pack
find "$out" -name '*.log' -o -name '*.json' | grep -v results/ | xargs rm -f
