#!/usr/bin/env bash
# Session 13, device call F: v21d = call E's v21c with exp(gamma_C) as a [1][128] fp32 tensor box
# instead of a plain bulk copy (racecheck reported call E's bulk copy against the reads it
# completes; the tensor boxes it accepts). The landing form.
#   .carry/bin/libkda.so            v21d
#   .carry/before/libkda-head.so    HEAD (v19, commit 9d31f28)
set -u
. scripts/device-env.sh
HEAD=.carry/before/libkda-head.so
kb="$bin/kda-bench --log-level warn"
KDA_STATE_VTILE= timeout 150 $kb --before $HEAD --same-bits --no-timing --ops fwd,bwd --decay normal,fast \
  --check-heads 0 --rows 'm2:*:*:*,R2:*:*:*' --out "$out/sb.json" > "$out/sb.log" 2>&1
echo "same-bits m2, R2 exit $?: $(grep -c DIFFERENT "$out/sb.log") DIFFERENT, $(grep -c identical "$out/sb.log") identical"
KDA_STATE_VTILE=64 timeout 150 $kb --before $HEAD --same-bits --no-timing --ops fwd,bwd --decay normal,fast \
  --check-heads 0 --rows 'ragged:*:*:*' --out "$out/sb-vt64.json" > "$out/sb-vt64.log" 2>&1
echo "same-bits ragged vt64 exit $?: $(grep -c DIFFERENT "$out/sb-vt64.log") DIFFERENT, $(grep -c identical "$out/sb-vt64.log") identical"
gpu_tests v21d
for vt in 16 64; do
  for tool in racecheck synccheck; do
    KDA_STATE_VTILE=$vt timeout 120 compute-sanitizer --tool $tool $bin/gpu_bwd_tests \
      --gtest_filter="*m2_all_heads/g_off_saved_normal:*m2_all_heads/raw_fused_replay_fast" > "$out/$tool-vt$vt.log" 2>&1
    echo "$tool vt$vt (m2 bwd, saved and replay) exit $?: $(tail -1 "$out/$tool-vt$vt.log")"
  done
done
timeout 150 $kb --rows 'R2:g:off:saved,R2:raw:fused:replay,m2:g:off:saved,m2:raw:fused:replay' --ops fwd,bwd,fwd+bwd \
  --stages --before $HEAD --out "$out/ab-small.json" > "$out/ab-small.log" 2>&1
echo "A/B small rows exit $?"
grep -E "^\|" "$out/ab-small.log" | grep -E "\| (fwd|bwd|fwd\+bwd|fwd/fwd_state|bwd/bwd_state_replay) \|"
tar -C "$out" -czf "$out/call-f-logs.tgz" $(cd "$out" && ls *.log *.json) && (cd "$out" && rm -f *.log *.json)
