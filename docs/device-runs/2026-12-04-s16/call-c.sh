#!/usr/bin/env bash
# Session 16, device call C: the flags published with one fence.acq_rel.gpu and relaxed stores,
# every 8 chunks (v23d) or every 2 (v23e), against the base (30a5991, v22): stage times, then v23d
# on every R2 key, m2 and a big row.
set -u
. scripts/device-env.sh
HEAD=$bin/libkda-base.so
kb="$bin/kda-bench --log-level warn"
for v in v23d v23e; do
  timeout 250 $kb --library $bin/libkda-$v.so --before $HEAD --rows 'R2:g:off:saved,m2:g:off:saved' \
    --ops bwd,fwd+bwd --stages --out "$out/stages-$v.json" > "$out/stages-$v.log" 2>&1
  echo "stages $v exit $?"; grep -E "^\| [0-9A-Za-z]+:" "$out/stages-$v.log" | grep -vE "bwd_(intra|state_replay|reduce)|fwd/"
done
LIB=$bin/libkda-v23d.so
same_bits v23d "" 'm2:*:*:*,R2:*:*:*,ragged:*:*:*'
timeout 300 $kb --library $LIB --before $HEAD --rows 'R2:*:*:*,m2:g:off:saved,m2:raw:fused:replay,4doc:raw:fused:saved' \
  --ops bwd,fwd+bwd --out "$out/ab.json" > "$out/ab.log" 2>&1
echo "A/B exit $?"; grep -E "^\| [0-9A-Za-z]+:" "$out/ab.log"
tar -C "$out" -czf "$out/call-c-logs.tgz" $(cd "$out" && ls *.log *.json) && (cd "$out" && rm -f *.log *.json)
