#!/usr/bin/env bash
# Session 34, call C. Carried: libkda-v52.so = main at c9f8166 (v52), libkda-v53.so = v53 (the
# gate as bwd_grad's first cp.async group, which the gate scan alone waits for; -exp(A_log) formed
# in gate_scan, after the gate is in, in bwd_grad and fwd_intra), libkda-v53h.so = v53 with the
# gate's copies issued before h's (KDA_EXP_GATE_BEFORE_H). Each one's checks (same bits as v52 on
# every key of m2, R2, ragged; GPU tests), then the A/B of each against v52 on every R2 key
# (bwd, fwd+bwd, stage times). Logs: $OUT.
set -u
. scripts/device-env.sh
export HEAD=$bin/libkda-v52.so
pack_logs call-c
for v in v53 v53h; do
  LIB=$bin/libkda-$v.so check_build $v; mv "$out/sb-own.log" "$out/sb-$v.log"; mv "$out/sb-own.json" "$out/sb-$v.json"
  pack_logs call-c
done
for v in v53 v53h; do
  AB_SHOW='fwd_intra|bwd_grad|\| (bwd|fwd\+bwd) \|' ab $v-v52 "$bin/libkda-$v.so" "$HEAD" 110 'R2:*:*:*' bwd,fwd+bwd; pack_logs call-c
done
find "$out" -name '*.log' -o -name '*.json' | grep -v results/ | xargs rm -f
