#!/usr/bin/env bash
# Session 11, device call H (the last 6 minutes of the budget): v16, v_new in the saved set and the
# replay buffer as the state pass's own bf16 hi and lo planes (was FP32, loaded into registers and
# split again by bwd_grad: the same split, so the same bits), copied by cp.async in bwd_grad.
#   .carry/bin/libkda.so          v16 (v15 + this)
#   .carry/before/libkda-v15.so   v15 (call F's build)
# Same bits (16-column and 64-column state pass), GPU bwd tests, A/B of bwd with stages. One log.
set -u
. scripts/device-env.sh
V15=.carry/before/libkda-v15.so log="$out/call-h.log"
kb="$bin/kda-bench --log-level warn"
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
  for vt in "" 64; do # "": the row's own choice (16 columns on m2 and ragged)
    KDA_STATE_VTILE=$vt timeout 50 $kb --before $V15 --same-bits --no-timing --ops fwd,bwd \
      --decay normal,fast --check-heads 0 --rows 'ragged:*:*:*,m2:*:*:*' --out /tmp/sb.json > /tmp/sb.log 2>&1
    echo "same-bits v16 vs v15 (vt ${vt:-of the row}) exit $?: $(grep -c DIFFERENT /tmp/sb.log) DIFFERENT, $(grep -c identical /tmp/sb.log) identical"
  done
  timeout 90 $bin/gpu_bwd_tests > /tmp/bt.log 2>&1
  echo "gpu_bwd_tests exit $?: $(grep -E '^\[  (PASSED|FAILED) +\] [0-9]' /tmp/bt.log | tr '\n' ' ')"
  grep -E "^\[  FAILED  \] [a-z]" /tmp/bt.log | sed 's/,.*//' | sort -u
  timeout 100 $kb --rows '4doc:g:off:replay,4doc:raw:fused:saved,1doc:g:fused:saved' --ops bwd --stages \
    --before $V15 --out /tmp/ab.json > /tmp/ab.log 2>&1
  echo "A/B v16 vs v15 exit $?"
  grep -E "^\|" /tmp/ab.log
} > "$log" 2>&1
cat "$log"
