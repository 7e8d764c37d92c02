#!/usr/bin/env bash
# Session 17, device call J: v28b (v28 with the swizzled h and its copy-engine store only where
# the call stores h; the forward of the replay path keeps the padded layout) against v26
# (libkda-v26.so, HEAD 5a2b01f): bits, GPU tests, sanitizers, A/B.
set -u
. scripts/device-env.sh
HEAD=$bin/libkda-v26.so
export LIB=$bin/libkda.so
kb="$bin/kda-bench --log-level warn"
same_bits own "" 'm2:*:*:*,R2:*:*:*,ragged:*:*:*'
same_bits vt16 16 'ragged:*:*:*'
gpu_tests v28b $LIB
timeout 200 $kb --library $LIB --before $HEAD --samples 25 \
  --rows 'R2:g:off:saved,R2:g:off:replay,R2:raw:fused:saved,R2:raw:fused:replay,m2:g:off:saved,m2:g:off:replay,m2:raw:fused:saved,m2:raw:fused:replay' \
  --ops fwd --stages --out "$out/ab-v28b-fwd.json" > "$out/ab-v28b-fwd.log" 2>&1
echo "A/B v28b vs v26 (fwd) exit $?"; grep -E "^\| [0-9A-Za-z]+:.*fwd" "$out/ab-v28b-fwd.log"
timeout 120 $kb --library $LIB --before $HEAD --rows 'R2:raw:fused:replay,m2:raw:fused:replay,R2:g:off:saved' \
  --ops bwd,fwd+bwd --stages --out "$out/ab-v28b-bwd.json" > "$out/ab-v28b-bwd.log" 2>&1
echo "A/B v28b vs v26 (bwd) exit $?"; grep -E "^\| [0-9A-Za-z]+:" "$out/ab-v28b-bwd.log" | grep -E "\| (bwd|fwd\+bwd|bwd/bwd_state_replay) \|"
sanitize 16
tar -C "$out" -czf "$out/call-j-logs.tgz" $(cd "$out" && ls *.log *.json) && (cd "$out" && rm -f *.log *.json)
