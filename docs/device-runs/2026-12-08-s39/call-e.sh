#!/usr/bin/env bash
# Session 39, call E (written, not run): beside bwd_dh, are bwd_grad's blocks waiting for its flags
# or for their own loads? Its blocks take 6 - 9 us from their start to the flags (old mark 0)
# while bwd_dh runs and 3.4 - 4.5 after it (perf-log "Session 39", "Learned"). main's timeline
# build with six marks (new mark 0: warp 0's loads issued, its flag wait next): the span start ->
# mark 0 is the loads' issue, mark 0 -> mark 1 the flag wait. R2 saved, g:off and raw:fused,
# fwd+bwd and bwd. Carried: xz libkda-tl6.so (main 754871a, built on the development machine). Logs: $OUT.
set -u
. scripts/device-env.sh
call_begin call-e
out=$top/tl6; mkdir -p "$out"
for key in R2:g:off:saved R2:raw:fused:saved; do TL=$bin/libkda-tl6.so timeline $key fwd+bwd bwd; done
tl_waves grad
out=$top; pack_logs call-e
