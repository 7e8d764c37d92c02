#!/usr/bin/env bash
# Device run: the timing work end to end (GPU timing tests; --stages --roofline; --cold-l2, --graph;
# --before against a deliberately slowed build, which must come out "slower"; nightly against a
# fresh baseline, with the normal build (exit 0) and the slowed one (exit 1)). Logs to $OUT.
# Needs in .carry/bin, besides what scripts/pack-device.sh copies: gpu_timing_tests and
# libkda-slow.so, e.g.
#   KDA_CMAKE_ARGS=-DKDA_SLOW_BUILD_NOOP_KERNELS=200 scripts/build-rev.sh HEAD build-rev/slow
#   cp build-rev/slow/libkda.so .carry/bin/libkda-slow.so; cp build/tests/gpu_timing_tests .carry/bin/
set -u
. "$(dirname "$0")/device-env.sh"
kb="$bin/kda-bench --log-level warn"
lib="--library $bin/libkda.so"
rows=m2:g:off:saved,4doc:raw:off:saved
echo "== libraries"; ldd $bin/kda-bench | grep -E "cublas|not found"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
echo "== gpu_timing_tests"
timeout 120 $bin/gpu_timing_tests > "$out/gpu_timing_tests.log" 2>&1; echo "exit $?"
grep -E "OK \]|FAILED|Failure|GB/s|SKIPPED" "$out/gpu_timing_tests.log" | head -20
echo "== --stages --roofline"
timeout 90 $kb $lib --rows $rows --ops fwd --stages --roofline --out "$out/roofline.json" --force 2>&1 | tee "$out/roofline.log"
for m in "--cold-l2" "--graph" "--graph --cold-l2 --retake-throttled"; do
  echo "== $m"
  timeout 60 $kb $lib --rows $rows --ops fwd $m --out "$out/method.json" --force 2>&1 | grep -E "median|warn|error"
done
echo "== --before (slowed build as AFTER: every op must be 'slower')"
timeout 150 $kb --library $bin/libkda-slow.so --rows $rows --ops fwd --check --check-heads 1 --decay normal \
  --before $bin/libkda.so --out "$out/pr.json" --force > "$out/pr.log" 2>&1; echo "exit $?"
sed -n '/^### /,$p' "$out/pr.log"
echo "== nightly"
slug=$($bin/kda-bench nightly --print-slug); echo "GPU class slug: $slug"
rm -rf "$out/results"
timeout 90 $kb $lib --rows m2:g:off:saved --ops fwd --check --check-heads 2 --repeat-check 3 \
  --out "$out/results/$slug/baseline.json" > "$out/baseline.log" 2>&1; echo "baseline exit $?"
timeout 90 $kb nightly --library $bin/libkda.so --results-dir "$out/results" > "$out/nightly-same.log" 2>&1
echo "nightly, same build: exit $? (want 0)"; tail -4 "$out/nightly-same.log"
timeout 90 $kb nightly --library $bin/libkda-slow.so --results-dir "$out/results" > "$out/nightly-slow.log" 2>&1
echo "nightly, slowed build: exit $? (want 1)"; tail -4 "$out/nightly-slow.log"
ls "$out/results/$slug"
