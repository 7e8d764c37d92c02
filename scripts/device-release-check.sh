#!/usr/bin/env bash
# Device run before a submission, in priority order: forward GPU tests (correctness of the kernel
# build being shipped), forward timing + repeat of the seed rows, --before with the same build
# (must be "same") and with a slowed build (.carry/bin/libkda-slow.so: must be "slower" where the
# extra launches matter), nightly against a fresh baseline (exit 0 same build, 1 slowed build),
# then the timing-engine GPU tests. Logs under $OUT.
set -u
. "$(dirname "$0")/device-env.sh"
kb="$bin/kda-bench --log-level warn"
timeout 60 $bin/gpu_fwd_tests > "$out/gpu_fwd_tests.log" 2>&1; echo "gpu_fwd_tests exit $?: $(grep -E 'PASSED|FAILED' "$out/gpu_fwd_tests.log" | tail -1)"
timeout 90 $kb --rows 'm2:g:off:saved,m2:raw:fused:saved,R2:g:off:saved,1doc:g:fused:saved,4doc:raw:off:saved,4doc:raw:fused:saved,4doc:g:off:replay' \
  --ops fwd --stages --repeat-check 2 --out "$out/fwd.json" --force > "$out/fwd.log" 2>&1; echo "fwd exit $?"
grep -E "fwd +median|DIFFERENT" "$out/fwd.log" | cut -c1-60
rows=m2:g:off:saved,4doc:raw:off:saved
timeout 60 $kb --library $bin/libkda.so --before $bin/libkda-same.so --rows $rows --ops fwd --out "$out/same.json" --force > "$out/same.log" 2>&1
echo "before=same build exit $?"; grep -E "^\| (m2|4doc)" "$out/same.log"
timeout 60 $kb --library $bin/libkda-slow.so --before $bin/libkda.so --rows $rows --ops fwd --out "$out/slow.json" --force > "$out/slow.log" 2>&1
echo "before=normal after=slowed exit $?"; grep -E "^\| (m2|4doc)" "$out/slow.log"
slug=$($bin/kda-bench nightly --print-slug)
timeout 40 $kb --rows m2:g:off:saved --ops fwd --check --check-heads 2 --repeat-check 3 \
  --out "$out/results/$slug/baseline.json" > "$out/baseline.log" 2>&1; echo "baseline exit $?"
timeout 40 $kb nightly --library $bin/libkda.so --results-dir "$out/results" > "$out/nightly-same.log" 2>&1
echo "nightly same build: exit $? (want 0)"
timeout 40 $kb nightly --library $bin/libkda-slow.so --results-dir "$out/results" > "$out/nightly-slow.log" 2>&1
echo "nightly slowed build: exit $? (want 1)"; grep -iE "slower|fail" "$out/nightly-slow.log" | head -3
timeout 60 $bin/gpu_timing_tests > "$out/gpu_timing_tests.log" 2>&1; echo "gpu_timing_tests exit $?: $(grep -E 'PASSED|FAILED' "$out/gpu_timing_tests.log" | tail -1)"
