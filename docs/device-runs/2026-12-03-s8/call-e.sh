#!/usr/bin/env bash
# Session 8, device call E: v8c (v8b with bwd_dh's lo half of dv_new staged in shared memory and
# stored with 16-byte copies like the hi half, instead of 4-byte stores from the fragments),
# the working tree in .carry/bin, against v8b (.carry/before/libkda-v8b.so).
#   every output bit the same as v8b; GPU bwd tests (V tiles 16/32/64 give the same bits);
#   racecheck on the 16- and 64-column bwd_dh; time against v8b with stages; the new nightly
#   baseline (if the bits are v8b's).
set -u
. scripts/device-env.sh
B=.carry/before/libkda-v8b.so
kb="$bin/kda-bench --log-level warn"
timeout 100 $kb --before $B --same-bits --no-timing --ops fwd,bwd --decay normal,fast \
  --check-heads 0 --rows 'ragged:*:*:*,m2:*:*:*,R2:*:*:saved,4doc:g:off:replay,4doc:raw:fused:saved' \
  --out "$out/samebits.json" > "$out/samebits.log" 2>&1
sb=$?
echo "same-bits exit $sb: $(grep -c DIFFERENT "$out/samebits.log") DIFFERENT, $(grep -c identical "$out/samebits.log") identical"
timeout 90 $bin/gpu_bwd_tests > "$out/gpu_bwd_tests.log" 2>&1
echo "gpu_bwd_tests exit $?: $(grep -E '^\[  (PASSED|FAILED) ' "$out/gpu_bwd_tests.log" | tr '\n' ' ' | cut -c1-200)"
timeout 90 compute-sanitizer --tool racecheck $bin/gpu_bwd_tests \
  --gtest_filter='*m2_all_heads/raw_fused_saved_normal:bwd_determinism.same_bits_for_every_state_vtile' > "$out/racecheck.log" 2>&1
echo "racecheck exit $?: $(tail -1 "$out/racecheck.log")"
timeout 150 $kb --rows '4doc:raw:fused:saved,4doc:g:off:replay,R2:g:off:saved' --ops bwd,fwd+bwd --stages --before $B \
  --out "$out/ab-v8b.json" > "$out/ab-v8b.log" 2>&1
echo "A/B v8c vs v8b exit $?"
grep -E "^\|" "$out/ab-v8b.log" | grep -vE "^\| *(---|row)" | grep -E "fwd\+bwd|bwd \||bwd_dh|bwd_grad" | head -20
# the nightly baseline of this build (docs/nightly.md; the keys of session 7's), if its bits are v8b's
if [ $sb = 0 ]; then
  mkdir -p "$out/results/H200-sm_90-132SMs"
  timeout 200 $kb --rows 'm2:*:*:saved,R2:g:off:saved,1doc:g:fused:saved,4doc:raw:off:saved,4doc:raw:fused:saved,4doc:g:off:replay' \
    --ops fwd,bwd,fwd+bwd --check --check-heads 2 --repeat-check 2 --out "$out/results/H200-sm_90-132SMs/baseline.json" \
    --force > "$out/baseline.log" 2>&1
  echo "baseline exit $?: $(grep -cE ' FAIL' "$out/baseline.log") FAIL lines, $(grep -c DIFFERENT "$out/baseline.log") DIFFERENT"
  cp "$out/results/H200-sm_90-132SMs/baseline.json" "$out/baseline.json"
fi
tar -C "$out" -czf "$out/call-e-logs.tgz" $(cd "$out" && ls *.log *.json) && (cd "$out" && rm -f *.log *.json)
