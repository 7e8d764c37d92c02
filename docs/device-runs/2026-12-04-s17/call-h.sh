#!/usr/bin/env bash
# Session 17, device call H: v28 (the 16-column forward state pass keeps h in the 32-byte swizzle
# and one output thread has the copy engine store the saved set's h, instead of the output warps'
# 16-byte stores, which call G showed costing the pass 15 %) against v26 (libkda-v26.so, HEAD
# 5a2b01f): bits, GPU tests, sanitizers, A/B.
set -u
. scripts/device-env.sh
HEAD=$bin/libkda-v26.so
export LIB=$bin/libkda.so
kb="$bin/kda-bench --log-level warn"
same_bits own "" 'm2:*:*:*,R2:*:*:*,ragged:*:*:*'
same_bits vt16 16 'ragged:*:*:*'
gpu_tests v28 $LIB
KDA_STATE_VTILE=16 gpu_tests v28-vt16 $LIB
timeout 150 $kb --library $LIB --before $HEAD \
  --rows 'R2:g:off:saved,R2:raw:fused:replay,m2:g:off:saved,m2:raw:fused:replay' \
  --ops fwd,bwd,fwd+bwd --stages --out "$out/ab-v28.json" > "$out/ab-v28.log" 2>&1
echo "A/B v28 vs v26 exit $?"; grep -E "^\| [0-9A-Za-z]+:" "$out/ab-v28.log" | grep -v "0\.000"
sanitize 16
tar -C "$out" -czf "$out/call-h-logs.tgz" $(cd "$out" && ls *.log *.json) && (cd "$out" && rm -f *.log *.json)
