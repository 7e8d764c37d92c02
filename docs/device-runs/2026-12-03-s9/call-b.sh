#!/usr/bin/env bash
# Session 9, device call B: v9a as chosen (16 warps for the raw form's bwd_grad, 8 for the g form),
# the working tree in .carry/bin, against v8c (.carry/before/libkda-v8c.so): which tensors keep
# their bits (expected: every g-form tensor; raw: all but dbeta and the fused rows' dq, dk), GPU
# tests, time on the big keys; Nsight Compute on the g form's bwd_grad (4doc), whose 8 warps the
# 16-warp grid did not speed up.
set -u
. scripts/device-env.sh
B=.carry/before/libkda-v8c.so
kb="$bin/kda-bench --log-level warn"
timeout 90 $kb --before $B --same-bits --no-timing --ops fwd,bwd --decay normal,fast \
  --check-heads 0 --rows 'ragged:*:*:*,m2:*:*:*,R2:*:*:saved' \
  --out "$out/samebits.json" > "$out/samebits.log" 2>&1
echo "same-bits exit $?: $(grep -c DIFFERENT "$out/samebits.log") DIFFERENT, $(grep -c identical "$out/samebits.log") identical"
grep -B30 DIFFERENT "$out/samebits.log" | grep -E "^(same-bits|[a-zA-Z0-9]+:)" | head -3
grep DIFFERENT "$out/samebits.log" | awk '{print $1}' | sort | uniq -c
timeout 120 $bin/gpu_bwd_tests > "$out/gpu_bwd_tests.log" 2>&1
echo "gpu_bwd_tests exit $?: $(grep -E '^\[  (PASSED|FAILED) ' "$out/gpu_bwd_tests.log" | tr '\n' ' ' | cut -c1-60)"
grep -E "^\[  FAILED  \] [a-z]" "$out/gpu_bwd_tests.log" | sed 's/,.*//' | sort -u | head -12
timeout 200 $kb --rows '4doc:raw:fused:saved,4doc:raw:off:saved,4doc:g:off:replay,1doc:g:fused:saved,1doc:raw:fused:replay' \
  --ops bwd,fwd+bwd --stages --before $B --out "$out/ab.json" > "$out/ab.log" 2>&1
echo "A/B vs v8c exit $?"
grep -E "^\|" "$out/ab.log" | grep -vE "^\| *(---|row)" | grep -E "bwd_grad|fwd\+bwd|\| bwd \|" | head -40
timeout 100 ncu --clock-control none --kernel-name regex:bwd_grad --launch-skip 1 --launch-count 1 --set full \
  --import-source yes -o "$out/ncu-goff" $bin/kda-bench --log-level warn --rows 4doc:g:off:saved --ops bwd \
  --samples 1 --calls 1 --warmup 1 --out "$out/ncu-run.json" > "$out/ncu.log" 2>&1
echo "ncu exit $?"
ncu -i "$out/ncu-goff.ncu-rep" --page details --csv > "$out/ncu-goff-details.csv" 2>&1
ncu -i "$out/ncu-goff.ncu-rep" --page source --csv --print-source sass > "$out/ncu-goff-sass.csv" 2>&1
ls -la "$out" | grep ncu
grep -E '"(Duration|Warp Cycles Per Issued Instruction|Issue Slots Busy|Achieved Occupancy|Memory Throughput|DRAM Throughput|L1/TEX Hit Rate|Compute \(SM\) Throughput)"' "$out/ncu-goff-details.csv" | cut -d, -f12- | head
tar -C "$out" -czf "$out/call-b-logs.tgz" $(cd "$out" && ls *.log *.json *.csv) && (cd "$out" && rm -f *.log *.json *.csv)
