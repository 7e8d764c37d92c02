#!/usr/bin/env bash
# Session 10, device call A: v11 (fwd_intra's X off-diagonal blocks on tensor cores, 3xTF32) and
# v10 (qg as a bf16 hi + lo pair for bwd_dh's qg^T do), alone and together:
#   .carry/bin/libkda.so           v10 + v11 (the working tree)
#   .carry/exp/libkda-v11.so       v11 alone;  .carry/exp/libkda-v10.so  v10 alone
#   .carry/before/libkda-v9b.so    the landed build (commit 0c5a1ce)
# GPU tests of each; same-bits of v10+v11 against v11 (expected: o and every forward output the
# same, the backward's tensors moved); the FP64 check of the m2 and R2 keys (all heads, both
# decays) and a repeat of v10+v11; A/B time against v9b with stages.
set -u
. scripts/device-env.sh
V9=.carry/before/libkda-v9b.so V11=.carry/exp/libkda-v11.so V10=.carry/exp/libkda-v10.so
kb="$bin/kda-bench --log-level warn"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$out/gpu.txt" 2>&1
for lib in both:$bin/libkda.so v11:$V11 v10:$V10; do
  name=${lib%%:*} path=${lib#*:}
  for t in fwd bwd; do
    KDA_LIBRARY=$path timeout 120 $bin/gpu_${t}_tests > "$out/gpu_${t}_tests-$name.log" 2>&1
    echo "gpu_${t}_tests $name exit $?: $(grep -E '^\[  (PASSED|FAILED) ' "$out/gpu_${t}_tests-$name.log" | tr '\n' ' ' | cut -c1-70)"
    grep -E "^\[  FAILED  \] [a-z]" "$out/gpu_${t}_tests-$name.log" | sed 's/,.*//' | sort -u | head -8
  done
done
timeout 60 $kb --before $V11 --same-bits --no-timing --ops fwd,bwd --decay normal,fast --check-heads 0 \
  --rows 'ragged:*:*:*,m2:*:*:*' --out "$out/samebits.json" > "$out/samebits.log" 2>&1
echo "same-bits both vs v11 exit $?: $(grep -c DIFFERENT "$out/samebits.log") DIFFERENT, $(grep -c identical "$out/samebits.log") identical"
grep DIFFERENT "$out/samebits.log" | awk '{print $1}' | sort | uniq -c | head
timeout 150 $kb --rows 'm2:*:*:*,R2:*:*:*' --check --repeat-check 2 --no-timing --ops fwd,bwd \
  --out "$out/check.json" > "$out/check.log" 2>&1
echo "check m2/R2 exit $?: $(grep -c FAIL "$out/check.log") FAIL lines"
awk '/^accuracy/{h=$2" "$3" "$4} /FAIL/{print h": "$0}' "$out/check.log" | cut -c1-110 | head -12
grep DIFFERENT "$out/check.log" | head -4
# worst x FLA per tensor over every key and decay
awk '/^accuracy/{on=1; next} on && NF==7 && $1!="tensor"{if($6>w[$1])w[$1]=$6} NF==0{on=0} END{for(t in w) printf "%s %.2f  ", t, w[t]; print ""}' "$out/check.log"
timeout 200 $kb --rows '4doc:g:off:replay,4doc:raw:fused:replay,4doc:raw:fused:saved,1doc:g:fused:saved,R2:g:off:saved,m2:g:fused:saved' \
  --ops fwd,bwd,fwd+bwd --stages --before $V9 --out "$out/ab.json" > "$out/ab.log" 2>&1
echo "A/B both vs v9b exit $?"
grep -E "^\|" "$out/ab.log" | grep -vE "^\| *(---|row)" | grep -vE "0\.000[0-9] \|" | head -60
tar -C "$out" -czf "$out/call-a-logs.tgz" $(cd "$out" && ls *.log *.json *.txt) && (cd "$out" && rm -f *.log *.json *.txt)
