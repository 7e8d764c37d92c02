#!/usr/bin/env bash
# Session 39, call E (written, not run): bwd_grad's blocks in waves 1 - 3 take 7.6 - 8.7 us from
# their start to their dh flags acquired (old mark 0), 3.9 - 5.2 later, though their flags were
# published long before (perf-log "Session 39", "Learned"): does the loads' issue stall, or the
# acquire after it? main's timeline build with six marks (new mark 0: warp 0's loads issued, its
# flag wait next): start -> mark 0 is the issue, mark 0 -> mark 1 the acquire. R2 saved, g:off
# and raw:fused, fwd+bwd and bwd. Carried: xz libkda-tl6.so (built on the development machine:
# main 754871a's kernels, SASS identical, with session 40's host-side row clearing, so its fwd+bwd
# files should show the launch gap alone between the forward and the backward, a few us instead
# of 30 - 32). Logs: $OUT.
set -u
. scripts/device-env.sh
call_begin call-e
out=$top/tl6; mkdir -p "$out"
for key in R2:g:off:saved R2:raw:fused:saved; do TL=$bin/libkda-tl6.so timeline $key fwd+bwd bwd; done
tl_waves grad
out=$top; pack_logs call-e
