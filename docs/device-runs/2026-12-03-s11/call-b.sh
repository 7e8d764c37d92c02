#!/usr/bin/env bash
# Session 11, device call B: v13, L2 prefetch of a later block's inputs (common/l2_prefetch.cuh)
# in bwd_grad (its loads were 25.7 % of its stall samples in call A's profile) and fwd_intra:
#   .carry/bin/libkda.so          v13: bwd_grad prefetches before stage 3a, fwd_intra after its loads
#   .carry/exp/libkda-pf4.so      the same, bwd_grad's prefetch before stage 4 instead
#   .carry/before/libkda-head.so  the landed build (HEAD fbacb89)
# GPU tests and same-bits (a prefetch changes no bit); A/B against HEAD with stages; pf4 against
# v13; the prefetch distance through KDA_GRAD_PREFETCH_AHEAD / KDA_INTRA_PREFETCH_AHEAD (0: off,
# the control; 264: two waves ahead).
set -u
. scripts/device-env.sh
HEAD=.carry/before/libkda-head.so PF4=.carry/exp/libkda-pf4.so
kb="$bin/kda-bench --log-level warn"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$out/gpu.txt" 2>&1
gpu_tests v13
timeout 60 $kb --before $HEAD --same-bits --no-timing --ops fwd,bwd --decay normal,fast --check-heads 0 \
  --rows 'ragged:*:*:*,m2:*:*:*' --out "$out/samebits.json" > "$out/samebits.log" 2>&1
echo "same-bits v13 vs head exit $?: $(grep -c DIFFERENT "$out/samebits.log") DIFFERENT, $(grep -c identical "$out/samebits.log") identical"
ab() { # name before-lib rows ops [VAR=value... | --library AFTER]
  local name=$1 lib=$2 rows=$3 ops=$4 after=$bin/libkda.so; shift 4
  [ "${1:-}" = --library ] && after=$2 && shift 2
  env "$@" timeout 150 $kb --library $after --rows "$rows" --ops "$ops" --stages --before $lib --out "$out/ab-$name.json" > "$out/ab-$name.log" 2>&1
  echo "A/B $name exit $?"
  grep -E "^\|" "$out/ab-$name.log" | grep -E "\| (fwd|bwd|fwd\+bwd|fwd_intra|bwd_intra|bwd_grad) \|" | head -24
}
ab v13-vs-head $HEAD '4doc:g:off:replay,4doc:raw:fused:saved,1doc:g:fused:saved,R2:g:off:saved,m2:g:off:saved' fwd,bwd,fwd+bwd
ab pf4-vs-v13 $bin/libkda.so '4doc:g:off:replay,4doc:raw:fused:saved' bwd --library $PF4
ab off-vs-head $HEAD '4doc:g:off:replay' fwd,bwd KDA_GRAD_PREFETCH_AHEAD=0 KDA_INTRA_PREFETCH_AHEAD=0
ab ahead2-vs-head $HEAD '4doc:g:off:replay' fwd,bwd KDA_GRAD_PREFETCH_AHEAD=264 KDA_INTRA_PREFETCH_AHEAD=528
tar -C "$out" -czf "$out/call-b-logs.tgz" $(cd "$out" && ls *.log *.json *.txt) && (cd "$out" && rm -f *.log *.json *.txt)
