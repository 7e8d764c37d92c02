#!/usr/bin/env bash
# Session 13, device call C: v21, the state pass (fwd_state and bwd_state_replay) launched as the
# programmatic dependent of the intra stage, starting while the intra stage's last wave runs and
# waiting per tile for its ready flags (common/ready_flags.cuh); u and exp(gamma_C) now copied by
# the state passes' producer warps. No kernel arithmetic changed: every bit must be HEAD's.
#   .carry/bin/libkda.so            v21
#   .carry/before/libkda-head.so    HEAD (v19, commit 9d31f28)
# (Rewritten after the run to call scripts/device-env.sh's same_bits and sanitize, which hold the
# same commands; the sanitizer timeout there is 120 s.)
set -u
. scripts/device-env.sh
HEAD=.carry/before/libkda-head.so
kb="$bin/kda-bench --log-level warn"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$out/gpu.txt" 2>&1
same_bits own "" 'm2:*:*:*,R2:*:*:*'
for vt in 16 32 64; do same_bits vt$vt $vt 'ragged:*:*:*'; done
KDA_STATE_VTILE= timeout 150 $kb --before $HEAD --same-bits --no-timing --ops fwd,bwd --check-heads 0 \
  --rows '1doc:g:off:replay,4doc:raw:fused:saved' --out "$out/sb-big.json" > "$out/sb-big.log" 2>&1
echo "same-bits big rows exit $?: $(grep -c DIFFERENT "$out/sb-big.log") DIFFERENT, $(grep -c identical "$out/sb-big.log") identical"
gpu_tests v21
for vt in 16 32 64; do
  for t in fwd bwd; do
    KDA_STATE_VTILE=$vt timeout 120 $bin/gpu_${t}_tests > "$out/gpu_${t}_tests-vt$vt.log" 2>&1
    echo "gpu_${t}_tests vt$vt exit $?: $(grep -E '^\[  (PASSED|FAILED) +\] [0-9]' "$out/gpu_${t}_tests-vt$vt.log" | tr '\n' ' ')"
  done
done
for vt in 16 64; do sanitize $vt; done
timeout 200 $kb --rows 'R2:g:off:saved,R2:raw:fused:replay,m2:g:off:saved,m2:raw:fused:replay' --ops fwd,bwd,fwd+bwd \
  --stages --before $HEAD --out "$out/ab-small.json" > "$out/ab-small.log" 2>&1
echo "A/B small rows exit $?"
grep -E "^\|" "$out/ab-small.log" | grep -E "\| (fwd|bwd|fwd\+bwd|fwd/fwd_state|bwd/bwd_state_replay) \|"
timeout 240 $kb --rows '4doc:g:off:replay,4doc:raw:fused:saved,1doc:g:fused:saved' --ops fwd,bwd,fwd+bwd \
  --stages --before $HEAD --out "$out/ab-big.json" > "$out/ab-big.log" 2>&1
echo "A/B big rows exit $?"
grep -E "^\|" "$out/ab-big.log" | grep -E "\| (fwd|bwd|fwd\+bwd|fwd/fwd_state|bwd/bwd_state_replay) \|"
tar -C "$out" -czf "$out/call-c-logs.tgz" $(cd "$out" && ls *.log *.json *.txt) && (cd "$out" && rm -f *.log *.json *.txt)
