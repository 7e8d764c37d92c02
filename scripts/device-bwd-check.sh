#!/usr/bin/env bash
# Device run for the backward: forward and backward GPU tests, then fwd/bwd/fwd+bwd timing with
# stages, accuracy (--check) and bitwise repeat of the seed rows. ROWS / CHECK_HEADS / OPS / EXTRA
# override the defaults; TESTS=0 skips the GPU tests. Logs under $OUT.
set -u
. "$(dirname "$0")/device-env.sh"
rows=${ROWS:-'m2:*:*:*,R2:g:off:saved,1doc:g:fused:saved,4doc:raw:off:saved,4doc:raw:fused:saved,4doc:g:off:replay'}
if [ "${TESTS:-1}" = 1 ]; then
  timeout 120 $bin/gpu_fwd_tests > "$out/gpu_fwd_tests.log" 2>&1
  echo "gpu_fwd_tests exit $?: $(grep -E 'PASSED|FAILED' "$out/gpu_fwd_tests.log" | tail -1)"
  timeout ${BWD_TEST_TIMEOUT:-300} $bin/gpu_bwd_tests ${BWD_FILTER:+--gtest_filter=$BWD_FILTER} > "$out/gpu_bwd_tests.log" 2>&1
  echo "gpu_bwd_tests exit $?"
  grep -E "^\[  (PASSED|FAILED) |tests? ran|Failure" "$out/gpu_bwd_tests.log" | sort | uniq -c | sort -rn | head -20
  grep -E "rel_l2" "$out/gpu_bwd_tests.log" | awk '{print $2,$3,$4,$5,$6,$7,$9,$10,$11}' | sort -k7 -g | tail -${TEST_LINES:-12}
fi
[ "${TIMING:-1}" = 1 ] || exit 0
timeout ${RUN_TIMEOUT:-400} $bin/kda-bench --log-level warn --rows "$rows" --ops "${OPS:-fwd,bwd,fwd+bwd}" --stages \
  --check --check-heads "${CHECK_HEADS:-2}" --repeat-check 2 ${EXTRA:-} --out "$out/bwd.json" --force > "$out/run.log" 2>&1
echo "kda-bench exit $?"
grep -E " median |FAIL|rror|DIFFERENT" "$out/run.log" | cut -c1-80 | head -80
