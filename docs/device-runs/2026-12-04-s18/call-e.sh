#!/usr/bin/env bash
# Session 18, device calls E and F. v33 (the carried libkda.so): bwd_grad has the copy engine bring the
# chunk's gate rows (one dense [64][1][128] fp32 box into region g, where gamma replaces it)
# instead of 32 register loads a thread; kda_bwd refuses a gate that is not 16-byte aligned (new
# GPU test). Call E ran v33 without the CTA barrier after the mbarriers' init: synccheck found the
# gate's wait racing the init (and the A/B hit a launch failure); call F runs v33b, with it.
# Against v32 (e53078c, libkda-v32.so): bits on every key, GPU tests, sanitizers, A/B.
set -u
. scripts/device-env.sh
HEAD=$bin/libkda-v32.so
export LIB=$bin/libkda.so
check_build v33b 16
ROWS='R2:g:off:saved,R2:g:fused:saved,R2:raw:off:saved,R2:raw:fused:saved,R2:raw:fused:replay,4doc:g:off:saved,4doc:g:fused:saved,4doc:raw:off:saved,4doc:raw:fused:saved'
AB_SHOW='bwd \||bwd_grad' ab v33b $LIB $HEAD 220 "$ROWS" bwd
sanitize 16
tar -C "$out" -czf "$out/call-e-logs.tgz" $(cd "$out" && ls *.log *.json) && (cd "$out" && rm -f *.log *.json)
