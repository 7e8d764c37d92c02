#!/usr/bin/env bash
# Session 26, device call B: is 4doc's dA_log at fast decay a failure of ours or of the row? FLA's
# chunk_kda (0.6.0, pip wheels carried in .whl/) and v45 on the same 4doc inputs, heads 0-15,
# both decays, raw:off and raw:fused (the saved path: the replay path's gradients are the same
# bits), each head's dA_log and ddt_bias error side by side (fla_peer.py --per-head). The FLA
# level in ../shared/docs/peers.md was measured on m2 and R2, whose cancellation is far smaller
# than 4doc head 0's (x11 070). Accuracy only: neither side is timed.
# Carried: libkda.so = v45 (ce2326e), .whl/.
set -u
heads=$(seq -s, 0 15)
export ROWS='4doc:raw:off:saved,4doc:raw:fused:saved' OPS=fwd,bwd CHECK_HEADS=$heads OURS_EXTRA=--no-timing \
  FLA_EXTRA='--no-timing --per-head' OURS_TIMEOUT=260 FLA_TIMEOUT=300 TABLE_CHARS=12000
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
bash scripts/device-fla-peer.sh
