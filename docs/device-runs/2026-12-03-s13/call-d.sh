#!/usr/bin/env bash
# Session 13, device call D: v21b (call C's v21 with the producer's flag polls 32 chunks at a time
# and the cp.async arrivals counted with .noinc: call C's synccheck flagged the counting form as a
# barrier overflow), and the same build without the programmatic launch (nopdl: the state pass
# starts after the intra stage, as before; only u / exp(gamma_C) moved to the producer warp).
#   .carry/bin/libkda.so            v21b
#   .carry/bin/libkda-nopdl.so      v21b without the early launch
#   .carry/before/libkda-head.so    HEAD (v19, commit 9d31f28)
# (Rewritten after the run to call scripts/device-env.sh's same_bits and sanitize, which hold the
# same commands; the sanitizer timeout there is 120 s.)
set -u
. scripts/device-env.sh
HEAD=.carry/before/libkda-head.so
kb="$bin/kda-bench --log-level warn"
same_bits own "" 'm2:*:*:*,R2:*:*:*,ragged:*:*:replay'
for vt in 16 64; do sanitize $vt racecheck synccheck; done
KDA_STATE_VTILE=16 timeout 120 $bin/gpu_bwd_tests --gtest_filter='*ragged*:*determinism*:*vtile*' > "$out/gpu_bwd_tests-vt16.log" 2>&1
echo "gpu_bwd_tests ragged/determinism/vtile vt16 exit $?: $(grep -E '^\[  (PASSED|FAILED) +\] [0-9]' "$out/gpu_bwd_tests-vt16.log" | tr '\n' ' ')"
for lib in libkda libkda-nopdl; do
  timeout 200 $kb --library $bin/$lib.so --rows 'R2:g:off:saved,R2:raw:fused:replay,m2:g:off:saved,m2:raw:fused:replay' \
    --ops fwd,bwd,fwd+bwd --stages --before $HEAD --out "$out/ab-small-$lib.json" > "$out/ab-small-$lib.log" 2>&1
  echo "A/B small rows $lib exit $?"
  grep -E "^\|" "$out/ab-small-$lib.log" | grep -E "\| (fwd|bwd|fwd\+bwd|fwd/fwd_state|bwd/bwd_state_replay) \|"
done
for lib in libkda libkda-nopdl; do
  timeout 200 $kb --library $bin/$lib.so --rows '4doc:g:off:replay,1doc:g:fused:saved' --ops fwd,fwd+bwd --stages \
    --before $HEAD --out "$out/ab-big-$lib.json" > "$out/ab-big-$lib.log" 2>&1
  echo "A/B big rows $lib exit $?"
  grep -E "^\|" "$out/ab-big-$lib.log" | grep -E "\| (fwd|fwd\+bwd|fwd/fwd_state|bwd/bwd_state_replay) \|"
done
tar -C "$out" -czf "$out/call-d-logs.tgz" $(cd "$out" && ls *.log *.json) && (cd "$out" && rm -f *.log *.json)
