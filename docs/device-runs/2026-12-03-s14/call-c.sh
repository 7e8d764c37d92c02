#!/usr/bin/env bash
# Session 14, device call C: v22c = v22b (call B: same bits as HEAD; R2's fwd_state 0.127 -> 0.285
# ms, the consumer warps issue-bound on the copy-out loops and v_new) with the saved set's h and
# v_new stored by the copy engine (tensor stores from swizzled shared boxes, one thread).
#   .carry/bin/libkda.so        HEAD (042880a)
#   .carry/bin/libkda-v22c.so   v22c (KDA_STATE_WG=1 selects the wgmma state pass)
set -u
. scripts/device-env.sh
HEAD=$bin/libkda.so
kb="$bin/kda-bench --log-level warn"
export KDA_STATE_WG=1 LIB=$bin/libkda-v22c.so
same_bits v22c "" 'm2:*:*:*,R2:*:*:*,ragged:*:*:*'
same_bits v22c-big "" '1doc:g:off:saved,4doc:raw:fused:replay'
grep -E "DIFFERENT" "$out/sb-v22c.log" "$out/sb-v22c-big.log" | head -5
gpu_tests v22c $LIB
sanitize 64 memcheck racecheck
timeout 240 $kb --library $LIB --before $HEAD --rows 'R2:g:off:saved,R2:raw:fused:replay,m2:g:off:saved,1doc:g:off:saved,4doc:g:off:replay' \
  --ops fwd,fwd+bwd --stages --out "$out/ab-v22c.json" > "$out/ab-v22c.log" 2>&1
echo "A/B v22c exit $?"
grep -E "^\|" "$out/ab-v22c.log" | grep -E "\| (fwd|fwd\+bwd|fwd/fwd_state|fwd/fwd_intra|bwd/bwd_state_replay) \|"
ncu_kernel v22c-r2 fwd_state_wg 'R2:g:off:saved' fwd
tar -C "$out" -czf "$out/call-c-logs.tgz" $(cd "$out" && ls *.log *.json *.csv) && (cd "$out" && rm -f *.log *.json *.csv)
