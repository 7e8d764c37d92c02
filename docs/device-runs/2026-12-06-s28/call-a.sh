#!/usr/bin/env bash
# Session 28, device call A: FLA 0.6.0's chunk_kda and v45 timed on the same card (this call's GPU)
# on the four big-row keys that ../shared/docs/peers.md measured FLA on (on the H200), so that the
# speed targets (fwd <= 0.8x, bwd and fwd+bwd <= 0.5x FLA) are read with both sides on one GPU:
# v38 - v45 have only been timed on H100s, against FLA's H200 figures. Session 27's call D (two of
# these keys, a script this one replaces) never ran. Normal decay only (timing), head 0 checked. One fla_peer.py process:
# Triton autotunes once for the 64 heads.
# Carried: .carry/bin (libkda.so = v45; bwd_grad's SASS identical to a7c7829's), .whl/ (fla-core and
# flash-linear-attention 0.6.0).
set -u
# ROWS may name fewer keys when little device time is left (two keys: about half the time).
export ROWS=${ROWS:-'4doc:raw:off:saved,4doc:raw:fused:saved,4doc:g:off:replay,1doc:g:fused:saved'} DECAYS=normal \
  CHECK_HEADS=1 OURS_TIMEOUT=${OURS_TIMEOUT:-200} FLA_TIMEOUT=${FLA_TIMEOUT:-330} TABLE_CHARS=6000
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
start=$(date +%s)
bash scripts/device-fla-peer.sh
echo "call A: $(( $(date +%s) - start )) s"
