#!/usr/bin/env bash
# Session 17, device call B: Nsight Compute on v26's fwd_intra (R2:g:off:saved and
# 4doc:g:off:replay) for the per-phase split (scripts/ncu_phases.py, on the development machine).
set -u
. scripts/device-env.sh
export LIB=$bin/libkda.so
ncu_kernel intra-r2 'fwd_intra' 'R2:g:off:saved' fwd
ncu_kernel intra-4doc 'fwd_intra' '4doc:g:off:replay' fwd
tar -C "$out" -czf "$out/call-b-logs.tgz" $(cd "$out" && ls *.log *.json *.csv *.gz 2>/dev/null) && (cd "$out" && rm -f *.log *.json *.csv *.gz)
