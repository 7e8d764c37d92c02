#!/usr/bin/env bash
# Session 17, device call I: v28 against v26 again, forward only, 25 samples, on the saved and the
# replay keys of R2 and m2 (call H had the replay path's forward state pass 2 - 4 % slower; that
# pass stores no h, so only the swizzled layout differs there).
set -u
. scripts/device-env.sh
AB_SHOW=fwd ab v28-fwd $bin/libkda.so $bin/libkda-v26.so 200 'R2:g:off:saved,R2:g:off:replay,R2:raw:fused:saved,R2:raw:fused:replay,m2:g:off:saved,m2:g:off:replay,m2:raw:fused:saved,m2:raw:fused:replay' fwd --samples 25
tar -C "$out" -czf "$out/call-i-logs.tgz" $(cd "$out" && ls *.log *.json) && (cd "$out" && rm -f *.log *.json)
