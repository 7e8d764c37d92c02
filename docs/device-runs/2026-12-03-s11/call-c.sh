#!/usr/bin/env bash
# Session 11, device call C: v13b, the L2 prefetch of call B with per-thread prefetch.global.L2 of
# 128-byte lines (v13a's bulk prefetch took a uniform address: a loop over the lanes per row).
#   .carry/bin/libkda.so          v13b: bwd_grad prefetches before stage 3a, fwd_intra after its loads
#   .carry/exp/libkda-pf4.so      the same, bwd_grad's prefetch before stage 4
#   .carry/before/libkda-head.so  the landed build (HEAD fbacb89)
# A/B against HEAD with stages, each kernel's prefetch alone (the other's distance 0 by env), pf4.
set -u
. scripts/device-env.sh
HEAD=.carry/before/libkda-head.so PF4=.carry/exp/libkda-pf4.so
kb="$bin/kda-bench --log-level warn"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$out/gpu.txt" 2>&1
ab() { # name before-lib rows ops [--library AFTER] [VAR=value...]
  local name=$1 lib=$2 rows=$3 ops=$4 after=$bin/libkda.so; shift 4
  [ "${1:-}" = --library ] && after=$2 && shift 2
  env "$@" timeout 150 $kb --library $after --rows "$rows" --ops "$ops" --stages --before $lib --out "$out/ab-$name.json" > "$out/ab-$name.log" 2>&1
  echo "A/B $name exit $?"
  grep -E "^\|" "$out/ab-$name.log" | grep -E "\| (fwd|bwd|fwd\+bwd|fwd/fwd_intra|bwd/bwd_intra|bwd/bwd_grad) \|" | head -24
}
ab v13b-vs-head $HEAD '4doc:g:off:replay,1doc:g:fused:saved,4doc:raw:fused:saved' fwd,bwd
ab grad-only-vs-head $HEAD '4doc:g:off:replay,1doc:g:fused:saved' bwd KDA_INTRA_PREFETCH_AHEAD=0
ab pf4-vs-head $HEAD '4doc:g:off:replay,1doc:g:fused:saved' bwd --library $PF4 KDA_INTRA_PREFETCH_AHEAD=0
tar -C "$out" -czf "$out/call-c-logs.tgz" $(cd "$out" && ls *.log *.json *.txt) && (cd "$out" && rm -f *.log *.json *.txt)
