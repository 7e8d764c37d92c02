#!/usr/bin/env bash
# Session 13, device call F: v21d = call E's v21c with exp(gamma_C) as a [1][128] fp32 tensor box
# instead of a plain bulk copy (racecheck reported call E's bulk copy against the reads it
# completes; the tensor boxes it accepts). The landing form.
#   .carry/bin/libkda.so            v21d
#   .carry/before/libkda-head.so    HEAD (v19, commit 9d31f28)
# (Rewritten after the run to call scripts/device-env.sh's same_bits and sanitize, which hold the
# same commands; the sanitizer timeout there is 120 s.)
set -u
. scripts/device-env.sh
HEAD=.carry/before/libkda-head.so
kb="$bin/kda-bench --log-level warn"
same_bits own "" 'm2:*:*:*,R2:*:*:*'
same_bits vt64 64 'ragged:*:*:*'
gpu_tests v21d
for vt in 16 64; do sanitize $vt racecheck synccheck; done
timeout 150 $kb --rows 'R2:g:off:saved,R2:raw:fused:replay,m2:g:off:saved,m2:raw:fused:replay' --ops fwd,bwd,fwd+bwd \
  --stages --before $HEAD --out "$out/ab-small.json" > "$out/ab-small.log" 2>&1
echo "A/B small rows exit $?"
grep -E "^\|" "$out/ab-small.log" | grep -E "\| (fwd|bwd|fwd\+bwd|fwd/fwd_state|bwd/bwd_state_replay) \|"
tar -C "$out" -czf "$out/call-f-logs.tgz" $(cd "$out" && ls *.log *.json) && (cd "$out" && rm -f *.log *.json)
