#!/usr/bin/env bash
# Session 15, device call B: v22 landed form: V tiles of 64 take the wgmma state pass (v22d of call
# A), 16 and 32 stay v19's; no environment switch.
#   .carry/bin/libkda.so       HEAD (076c32d; kernels as 042880a, v21)
#   .carry/bin/libkda-v22.so   the working tree
set -u
. scripts/device-env.sh
HEAD=$bin/libkda.so
kb="$bin/kda-bench --log-level warn"
export LIB=$bin/libkda-v22.so
same_bits vt64 64 'm2:*:*:*,R2:*:*:*,ragged:*:*:*'
same_bits own "" 'm2:*:*:*,R2:*:*:*,ragged:*:*:*,4doc:g:fused:saved,1doc:raw:off:replay'
KDA_STATE_VTILE=64 gpu_tests v22-vt64 $LIB
gpu_tests v22 $LIB
timeout 200 $kb --library $LIB --rows '4doc:raw:off:saved,1doc:g:fused:replay' --ops fwd --check --repeat-check 3 \
  --samples 5 --out "$out/check.json" > "$out/check.log" 2>&1
echo "check+repeat exit $?"; grep -E "FAIL|differ|identical|rel" "$out/check.log" | head -12
timeout 200 $kb --library $LIB --before $HEAD --rows '1doc:g:fused:saved,4doc:raw:off:saved,1doc:raw:fused:replay,R2:g:off:saved' \
  --ops fwd,fwd+bwd --out "$out/ab.json" > "$out/ab.log" 2>&1
echo "A/B exit $?"; grep -E "^\| [0-9A-Za-z]+:" "$out/ab.log"
tar -C "$out" -czf "$out/call-b-logs.tgz" $(cd "$out" && ls *.log *.json) && (cd "$out" && rm -f *.log *.json)
