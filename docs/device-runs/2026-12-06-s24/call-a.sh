#!/usr/bin/env bash
# Session 24, device call A. Carried (scripts/pack-device.sh, then the libraries built here):
# libkda-v39.so = d50d5bd (v39, the landed build); libkda.so = v40 (the gate through cp.async into
# gamma's place in bwd_grad and fwd_intra, beta's load first); libkda-v41.so = v40 + v41 (raw
# bwd_grad: stage 5's x copied during stage 4); libkda-v42.so = v41 + v42 (one barrier for the
# slow sub-block flags); libkda-v43.so = v42 + v43 (bwd_grad and fwd_output read one ordered_chunk
# record a block). Checks of v43 (which holds the others) before timing: bits against v39 on every
# key of m2, R2, ragged and ragged with the V tile forced to 16, both GPU test binaries, memcheck
# and racecheck; then A/B with stage times, v43 against v39 on R2 and m2 (fwd, bwd), and v40
# against v39 on R2 (fwd, bwd).
set -u
. scripts/device-env.sh
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
HEAD=$bin/libkda-v39.so
export LIB=$bin/libkda-v43.so
t0=$SECONDS
check_build v43 16; echo "[checks $((SECONDS - t0))s]"
sanitize 16 memcheck racecheck; echo "[sanitizers $((SECONDS - t0))s]"
ab v43-R2m2 "$LIB" "$HEAD" 150 'R2:*:*:*,m2:*:*:*' fwd,bwd; echo "[A/B v43 $((SECONDS - t0))s]"
AB_SHOW='bwd_grad|fwd_intra|[|] bwd [|]|[|] fwd [|]' ab v40-R2 "$bin/libkda.so" "$HEAD" 100 'R2:*:*:*' fwd,bwd
echo "[A/B v40 $((SECONDS - t0))s]"
tar -C "$out" -czf "$out/call-a-logs.tgz" $(cd "$out" && ls *.log *.json 2>/dev/null) && (cd "$out" && rm -f *.log *.json)
