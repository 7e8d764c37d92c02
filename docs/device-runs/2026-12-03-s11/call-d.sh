#!/usr/bin/env bash
# Session 11, device call D: v13c, bwd_grad's L2 prefetch alone (fwd_intra's off: +4 - 6 % in
# calls B and C) with rolled loops (v13b's prefetch was +480 - 600 instructions a kernel, now
# +230). Call C: 4doc:g:off:replay bwd_grad -3 %, but 1doc:g:fused:saved +8 %. Here: A/B against
# HEAD on four keys, and on the fused key with the prefetch distance 0 (the code without its memory
# traffic) and 66 (half a wave ahead), to tell a code effect from a memory one.
set -u
. scripts/device-env.sh
HEAD=.carry/before/libkda-head.so
kb="$bin/kda-bench --log-level warn"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$out/gpu.txt" 2>&1
ab() { # name before-lib rows ops [VAR=value...]
  local name=$1 lib=$2 rows=$3 ops=$4; shift 4
  env "$@" timeout 150 $kb --rows "$rows" --ops "$ops" --stages --before $lib --out "$out/ab-$name.json" > "$out/ab-$name.log" 2>&1
  echo "A/B $name exit $?"
  grep -E "^\|" "$out/ab-$name.log" | grep -E "\| (fwd|bwd|fwd\+bwd|bwd/bwd_grad) \|" | head -24
}
ab v13c-vs-head $HEAD '4doc:g:off:replay,1doc:g:fused:saved,4doc:raw:fused:saved,4doc:raw:off:saved' bwd
ab ahead0-vs-head $HEAD '1doc:g:fused:saved,4doc:g:off:replay' bwd KDA_GRAD_PREFETCH_AHEAD=0
ab ahead66-vs-head $HEAD '1doc:g:fused:saved,4doc:g:off:replay' bwd KDA_GRAD_PREFETCH_AHEAD=66
tar -C "$out" -czf "$out/call-d-logs.tgz" $(cd "$out" && ls *.log *.json *.txt) && (cd "$out" && rm -f *.log *.json *.txt)
