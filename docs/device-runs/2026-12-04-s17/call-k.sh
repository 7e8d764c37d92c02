#!/usr/bin/env bash
# Session 17, device call K (an experiment, no build to land): what the dh and dv_new stores cost
# the 16-column bwd_dh. libkda-dhnostore.so: v28b with the output warps' stores of dh, dv_new and
# its lo half left out (wrong gradients: timing of the bwd_dh stage only), against v28b.
set -u
. scripts/device-env.sh
kb="$bin/kda-bench --log-level warn"
timeout 100 $kb --library $bin/libkda-dhnostore.so --before $bin/libkda.so --rows 'R2:g:off:saved,m2:g:off:saved' \
  --ops bwd --stages --out "$out/ab-dhnostore.json" > "$out/ab-dhnostore.log" 2>&1
echo "A/B dhnostore vs v28b exit $?"; grep -E "^\| [0-9A-Za-z]+:.*bwd" "$out/ab-dhnostore.log" | grep -v "0\.000"
tar -C "$out" -czf "$out/call-k-logs.tgz" $(cd "$out" && ls *.log *.json) && (cd "$out" && rm -f *.log *.json)
