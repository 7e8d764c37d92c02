#!/usr/bin/env bash
# Device run: compute-sanitizer memcheck and racecheck of the backward on m2 (issue 5), plus
# synccheck; one gtest case each. Logs under $OUT.
set -u
. "$(dirname "$0")/device-env.sh"
timeout ${SAN_TIMEOUT:-200} compute-sanitizer --tool memcheck $bin/gpu_bwd_tests \
  --gtest_filter='*m2_all_heads/raw_fused_replay_fast:*ragged*/g_off_saved_normal' > "$out/bwd-memcheck.log" 2>&1
echo "memcheck exit $?: $(tail -1 "$out/bwd-memcheck.log")"
timeout ${SAN_TIMEOUT:-200} compute-sanitizer --tool racecheck $bin/gpu_bwd_tests \
  --gtest_filter='*m2_all_heads/raw_fused_saved_normal' > "$out/bwd-racecheck.log" 2>&1
echo "racecheck exit $?: $(tail -1 "$out/bwd-racecheck.log")"
timeout ${SAN_TIMEOUT:-200} compute-sanitizer --tool synccheck $bin/gpu_bwd_tests \
  --gtest_filter='*m2_all_heads/g_off_replay_fast' > "$out/bwd-synccheck.log" 2>&1
echo "synccheck exit $?: $(tail -1 "$out/bwd-synccheck.log")"
