#!/usr/bin/env bash
# Session 17, device call K (an experiment, no build to land): what the dh and dv_new stores cost
# the 16-column bwd_dh. libkda-dhnostore.so: v28b with the output warps' stores of dh, dv_new and
# its lo half left out (wrong gradients: timing of the bwd_dh stage only), against v28b.
set -u
. scripts/device-env.sh
AB_SHOW=bwd ab dhnostore $bin/libkda-dhnostore.so $bin/libkda.so 100 'R2:g:off:saved,m2:g:off:saved' bwd
tar -C "$out" -czf "$out/call-k-logs.tgz" $(cd "$out" && ls *.log *.json) && (cd "$out" && rm -f *.log *.json)
