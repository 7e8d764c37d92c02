#!/usr/bin/env bash
# Session 13, device call A: v20, the forward state pass with each 16-column slice of h^T in one
# warp's registers (kernels/fwd/state_pass_regs.cu) for V tiles of 16, 32 and 64 columns.
#   .carry/bin/libkda.so            v20 (KDA_STATE_V19=1 selects v19's kernels inside it)
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
gpu_tests v20
for vt in 16 32 64; do
  KDA_STATE_VTILE=$vt timeout 120 $bin/gpu_fwd_tests > "$out/gpu_fwd_tests-vt$vt.log" 2>&1
  echo "gpu_fwd_tests vt$vt exit $?: $(grep -E '^\[  (PASSED|FAILED) +\] [0-9]' "$out/gpu_fwd_tests-vt$vt.log" | tr '\n' ' ')"
done
for vt in 16 64; do sanitize $vt; done
timeout 150 $kb --rows 'R2:g:off:saved,R2:raw:fused:replay,m2:g:off:saved' --ops fwd,bwd,fwd+bwd \
  --stages --before $HEAD --out "$out/ab-small.json" > "$out/ab-small.log" 2>&1
echo "A/B small rows exit $?"
grep -E "^\|" "$out/ab-small.log" | grep -E "\| (fwd|bwd|fwd\+bwd|fwd/fwd_state|bwd/bwd_state_replay) \|"
for vt in 32 64; do
  KDA_STATE_VTILE=$vt timeout 100 $kb --rows 'R2:g:off:saved' --ops fwd --stages --before $HEAD \
    --out "$out/ab-R2-vt$vt.json" > "$out/ab-R2-vt$vt.log" 2>&1
  echo "A/B R2 vt$vt exit $?"; grep -E "^\|" "$out/ab-R2-vt$vt.log" | grep -E "\| (fwd|fwd/fwd_state) \|"
done
timeout 240 $kb --rows '4doc:g:off:replay,4doc:raw:fused:saved,1doc:g:fused:saved' --ops fwd,bwd,fwd+bwd \
  --stages --before $HEAD --out "$out/ab-big.json" > "$out/ab-big.log" 2>&1
echo "A/B big rows exit $?"
grep -E "^\|" "$out/ab-big.log" | grep -E "\| (fwd|bwd|fwd\+bwd|fwd/fwd_state|bwd/bwd_state_replay) \|"
tar -C "$out" -czf "$out/call-a-logs.tgz" $(cd "$out" && ls *.log *.json *.txt) && (cd "$out" && rm -f *.log *.json *.txt)
