#!/usr/bin/env bash
# Session 16, device call G: v24 (bwd_dh of 32/64 columns publishes too; flags whenever bwd_dh's
# grid fits the GPU at once), with bwd_dh's V tile forced (KDA_DH_VTILE) to 16, 32, 64, against
# v23 (b119c79, as landed).
set -u
. scripts/device-env.sh
kb="$bin/kda-bench --log-level warn"
export LIB=$bin/libkda-v24.so
for vt in 16 32 64; do
  KDA_DH_VTILE=$vt timeout 120 $kb --library $LIB --before $bin/libkda-v23.so --rows 'R2:g:off:saved,R2:raw:fused:replay,m2:g:off:saved' \
    --ops bwd,fwd+bwd --stages --samples 9 --out "$out/dh$vt.json" > "$out/dh$vt.log" 2>&1
  echo "dh vtile $vt exit $?"; grep -E "^\| [0-9A-Za-z]+:" "$out/dh$vt.log" | grep -E "\| (bwd|fwd\+bwd|bwd/bwd_dh|bwd/bwd_grad) \|"
done
timeout 120 $kb --library $LIB --before $bin/libkda-v23.so --rows '1doc:g:fused:saved,4doc:raw:off:saved' \
  --ops bwd --samples 9 --out "$out/big.json" > "$out/big.log" 2>&1
echo "big exit $?"; grep -E "^\| [0-9A-Za-z]+:" "$out/big.log"
KDA_DH_VTILE=32 same_bits dh32 "" 'm2:*:*:*,R2:*:*:*,ragged:*:*:*' $bin/libkda-base.so
tar -C "$out" -czf "$out/call-g-logs.tgz" $(cd "$out" && ls *.log *.json) && (cd "$out" && rm -f *.log *.json)
