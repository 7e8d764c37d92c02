#!/usr/bin/env bash
# Session 27, device call D: FLA 0.6.0's chunk_kda and v45 timed on the same card (this call's GPU),
# on two of the four big-row keys that ../shared/docs/peers.md measured FLA on (on the H200; two, to fit
# the session's last device minutes after failed starts and a machine taken back), so that the
# speed targets (fwd <= 0.8x, bwd and fwd+bwd <= 0.5x FLA) can be read with both sides on one GPU:
# v38 - v45 have only been timed on H100s, against FLA's H200 figures. Normal decay only (timing),
# head 0 checked. One fla_peer.py process (Triton autotunes once for the 64 heads).
# Carried: libkda.so = v45 (9bde67f), .whl/ (fla-core and flash-linear-attention 0.6.0).
set -u
export ROWS='4doc:raw:off:saved,1doc:g:fused:saved' DECAYS=normal \
  CHECK_HEADS=1 OURS_TIMEOUT=90 FLA_TIMEOUT=270 TABLE_CHARS=5000
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
bash scripts/device-fla-peer.sh
