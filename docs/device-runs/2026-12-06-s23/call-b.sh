#!/usr/bin/env bash
# Session 23, device call B. The matrix's small part (m2, R2: 16 keys) of the carried build, the
# A/B of bwd and fwd+bwd against v37 (libkda-v37.so) on m2 and R2, and Nsight Compute on bwd_grad
# (R2:raw:fused:saved, R2:g:off:replay) for what to cut next. The build measured: the carried
# libkda.so (v38c), or with CANDIDATE=v39 the carried libkda-v39.so in its place.
set -u
. scripts/device-env.sh
if [ -n "${CANDIDATE:-}" ]; then cp "$bin/libkda-$CANDIDATE.so" "$bin/libkda.so"; fi
echo "measuring: ${CANDIDATE:-v38c}"
export LIB=$bin/libkda.so
bash scripts/device-matrix.sh small
timeout 200 $bin/kda-bench --log-level warn --library "$LIB" --before "$bin/libkda-v37.so" --rows 'R2:*:*:*,m2:*:*:*' \
  --ops bwd,fwd+bwd --out "$out/ab-v37.json" > "$out/ab-v37.log" 2>&1
echo "A/B against v37 exit $?"; grep -E "^\| [0-9A-Za-z]+:" "$out/ab-v37.log"
ncu_kernel grad-R2-rawfused-saved 'bwd_grad' 'R2:raw:fused:saved' bwd
ncu_kernel grad-R2-goff-replay 'bwd_grad' 'R2:g:off:replay' bwd
tar -C "$out" -czf "$out/call-b-logs.tgz" $(cd "$out" && ls *.log *.json *.csv) && (cd "$out" && rm -f *.log *.json *.csv)
