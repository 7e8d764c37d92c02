#!/usr/bin/env bash
# Session 17, device call I: v28 against v26 again, forward only, 25 samples, on the saved and the
# replay keys of R2 and m2 (call H had the replay path's forward state pass 2 - 4 % slower; that
# pass stores no h, so only the swizzled layout differs there).
set -u
. scripts/device-env.sh
kb="$bin/kda-bench --log-level warn"
timeout 200 $kb --library $bin/libkda.so --before $bin/libkda-v26.so --samples 25 \
  --rows 'R2:g:off:saved,R2:g:off:replay,R2:raw:fused:saved,R2:raw:fused:replay,m2:g:off:saved,m2:g:off:replay,m2:raw:fused:saved,m2:raw:fused:replay' \
  --ops fwd --stages --out "$out/ab-v28-fwd.json" > "$out/ab-v28-fwd.log" 2>&1
echo "A/B v28 vs v26 (fwd) exit $?"; grep -E "^\| [0-9A-Za-z]+:.*fwd" "$out/ab-v28-fwd.log"
tar -C "$out" -czf "$out/call-i-logs.tgz" $(cd "$out" && ls *.log *.json) && (cd "$out" && rm -f *.log *.json)
