#!/usr/bin/env bash
# Device run for a kernel change that must not change any output bit: the new build (.carry/bin)
# against an old libkda.so (BEFORE).
#   1. GPU tests of the new build (forward and backward; the backward's known gate-gradient
#      threshold failures are listed, not hidden).
#   2. Same bits: SAME_ROWS run once with each library on the same inputs (--dump, both decays),
#      and every output .npy is compared byte for byte (cmp); a difference is named and fails.
#   3. Speed: AB_ROWS timed with `--before BEFORE` (interleaved samples, verdicts) and --stages.
# Logs under $OUT, packed into one archive (a run brings back only a few files).
set -u
. "$(dirname "$0")/device-env.sh"
before=${BEFORE:?BEFORE=path of the old libkda.so}
status=0
if [ "${TESTS:-1}" = 1 ]; then
  timeout 150 $bin/gpu_fwd_tests > "$out/gpu_fwd_tests.log" 2>&1
  echo "gpu_fwd_tests exit $?: $(grep -E '^\[  (PASSED|FAILED) ' "$out/gpu_fwd_tests.log" | tr '\n' ' ')"
  timeout 240 $bin/gpu_bwd_tests ${BWD_FILTER:+--gtest_filter=$BWD_FILTER} > "$out/gpu_bwd_tests.log" 2>&1
  echo "gpu_bwd_tests exit $?: $(grep -E '^\[  (PASSED|FAILED) ' "$out/gpu_bwd_tests.log" | tr '\n' ' ')"
  grep -E "^\[  FAILED  \] [a-z]" "$out/gpu_bwd_tests.log" | sed 's/ (.*//' | sort | uniq | head -40 | tr '\n' ' '; echo
fi
same_rows=${SAME_ROWS:-'ragged:*:*:saved,m2:*:*:replay'}
for lib in new old; do
  l=$bin/libkda.so; [ $lib = old ] && l=$before
  rm -rf "/tmp/same-$lib"
  timeout 200 $bin/kda-bench --log-level warn --library "$l" --rows "$same_rows" --decay normal,fast --no-timing \
    --check-heads 0 --dump "/tmp/same-$lib" > "$out/same-$lib.log" 2>&1
done
n=0; diff=0
while read -r f; do
  rel=${f#/tmp/same-new/}
  case "$rel" in *manifest.json) continue ;; esac
  n=$((n + 1))
  cmp -s "$f" "/tmp/same-old/$rel" || { echo "DIFFERENT BITS: $rel"; diff=$((diff + 1)); }
done < <(find /tmp/same-new -type f | sort)
echo "same-bits: $n files compared, $diff different"
[ "$diff" = 0 ] && [ "$n" -gt 0 ] || status=1
if [ -n "${AB_ROWS:-}" ]; then
  timeout ${AB_TIMEOUT:-300} $bin/kda-bench --log-level warn --rows "$AB_ROWS" --ops "${OPS:-fwd,bwd}" --stages \
    --before "$before" --out "$out/ab.json" --force > "$out/ab.log" 2>&1
  echo "A/B exit $?"
  grep -E "^\||median" "$out/ab.log" | head -${AB_LINES:-60}
fi
tar -C "$out" -czf "$out/kernel-ab-logs.tgz" $(cd "$out" && ls *.log) && (cd "$out" && rm -f *.log)
exit $status
