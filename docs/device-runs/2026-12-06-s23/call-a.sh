#!/usr/bin/env bash
# Session 23, device call A (ordered so that a cut call keeps the most). Carried: libkda.so = v38c
# (3ba1e7b's v38 with the exp(gamma_C) map encoded by the 16-column bwd_dh launch only, a
# host-side change), libkda-v37.so = v37 (e7cb4eb; v38 was bit-identical to v37 on the H100 in
# session 21/22), libkda-v39.so = v39 (bwd_grad's stage 3d reads kgp formed once in stage 3c;
# dw, kgp, Z stored TF32-rounded; meant to keep every bit).
#   v38c against v37: bits, GPU tests. v39 against v38c: bits, GPU tests, FP64 on fresh inputs
#   (seed 2312061), memcheck and racecheck, A/B of R2's bwd with stage times, Nsight Compute on
#   bwd_grad last (the session's device time was short: no timing tests, no synccheck).
set -u
. scripts/device-env.sh
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
HEAD=$bin/libkda-v37.so
export LIB=$bin/libkda.so
check_build v38c 16
HEAD=$bin/libkda.so
export LIB=$bin/libkda-v39.so
same_bits v39 "" 'm2:*:*:*,R2:*:*:*,ragged:*:*:*'
gpu_tests v39 "$LIB"
timeout 120 $bin/kda-bench --log-level warn --library "$LIB" --rows 'R2:*:*:*,m2:*:*:*' --ops fwd,bwd \
  --check --seed 2312061 --no-timing --out "$out/check-seed2312061.json" > "$out/check-seed2312061.log" 2>&1
echo "FP64 check (v39) seed 2312061 exit $?"
sanitize 16 memcheck racecheck
ab v39-R2 "$LIB" "$HEAD" 150 'R2:*:*:*' bwd
ncu_kernel grad-v39-R2-goff-replay 'bwd_grad' 'R2:g:off:replay' bwd
tar -C "$out" -czf "$out/call-a-logs.tgz" $(cd "$out" && ls *.log *.json *.csv 2>/dev/null) && (cd "$out" && rm -f *.log *.json *.csv)
