#!/usr/bin/env bash
# Session 15, device call A: v22d = v22c (session 14 call C: the same bits as HEAD; 4doc:g:off:replay
# fwd -8 %, R2 fwd_state x2.2) with the v_new loop's loads ahead of its stores (ncu, call C: each
# element was a serialised LDS -> FADD -> STS round trip) and the u offsets formed once a thread.
#   .carry/bin/libkda.so        HEAD (076c32d; kernels as 042880a, v21)
#   .carry/bin/libkda-v22d.so   v22d (KDA_STATE_WG=1 selects the wgmma state pass for every V tile)
set -u
. scripts/device-env.sh
HEAD=$bin/libkda.so
kb="$bin/kda-bench --log-level warn"
export KDA_STATE_WG=1 LIB=$bin/libkda-v22d.so
same_bits v22d "" 'm2:*:*:*,R2:*:*:*,ragged:*:*:*'
same_bits v22d-big "" '1doc:g:off:saved,4doc:raw:fused:replay'
grep -E "DIFFERENT" "$out/sb-v22d.log" "$out/sb-v22d-big.log" | head -5
gpu_tests v22d $LIB
sanitize 64 memcheck racecheck synccheck
timeout 300 $kb --library $LIB --before $HEAD \
  --rows 'R2:g:off:saved,R2:raw:fused:replay,m2:g:off:saved,1doc:g:off:saved,4doc:g:off:replay,4doc:raw:fused:saved' \
  --ops fwd,fwd+bwd --stages --out "$out/ab-v22d.json" > "$out/ab-v22d.log" 2>&1
echo "A/B v22d exit $?"
grep -E "^\|" "$out/ab-v22d.log" | grep -E "\| (fwd|fwd\+bwd|fwd/fwd_state|fwd/fwd_intra|bwd/bwd_state_replay) \|"
ncu_kernel v22d-1doc fwd_state_wg '1doc:g:off:saved' fwd
tar -C "$out" -czf "$out/call-a-logs.tgz" $(cd "$out" && ls *.log *.json *.csv) && (cd "$out" && rm -f *.log *.json *.csv)
