#!/usr/bin/env bash
# Session 37, call E: the landed v56 (d9999ca; carried as .carry/bin/libkda.so with the harness
# built from the same tree): the small part of the matrix (m2 and R2, all 16 keys, fwd, bwd,
# fwd+bwd, FP64 check of every head at both decays, repeat check), then the FP64 check on fresh
# inputs (seed 2512070). Logs: $OUT.
set -u
. scripts/device-env.sh
pack_logs call-e
SMALL_TIMEOUT=170 scripts/device-matrix.sh small; pack_logs call-e
LIB=$bin/libkda.so seed_check v56 2512070; pack_logs call-e
find "$out" -name '*.log' | xargs rm -f
