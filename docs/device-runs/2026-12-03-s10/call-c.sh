#!/usr/bin/env bash
# Session 10, device call C: v12 (fwd_intra's diagonal 16x16 blocks of X in two levels: 8x8
# substitutions, then X_ba = -X_bb (A_ba X_aa); the working tree, on v10b + v11) against v10b
# (.carry/exp/libkda-v10b.so): GPU tests, A/B time of the forward with stages. Then the matrix's
# first two parts (m2 + R2, 1doc) of whichever build is kept: v12 if its GPU tests fail no case
# that v10b passes (call B: 4 dA_log cases) and 4doc:g:off:replay's fwd_intra is faster, else v10b.
set -u
. scripts/device-env.sh
V10B=.carry/exp/libkda-v10b.so
kb="$bin/kda-bench --log-level warn"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$out/gpu.txt" 2>&1
for t in fwd bwd; do
  timeout 120 $bin/gpu_${t}_tests > "$out/gpu_${t}_tests.log" 2>&1
  echo "gpu_${t}_tests exit $?: $(grep -E '^\[  (PASSED|FAILED) ' "$out/gpu_${t}_tests.log" | tr '\n' ' ' | cut -c1-40)"
  grep -E "^\[  FAILED  \] [a-z]" "$out/gpu_${t}_tests.log" | sed 's/,.*//' | sort -u | head -8
done
timeout 120 $kb --rows '4doc:g:off:replay,4doc:raw:fused:saved,R2:g:off:saved,m2:g:fused:saved' --ops fwd --stages \
  --before $V10B --out "$out/ab-v12.json" > "$out/ab-v12.log" 2>&1
echo "A/B v12 vs v10b exit $?"
grep -E "^\|" "$out/ab-v12.log" | grep -vE "^\| *(---|row)" | head -12
fwd_fail=$(grep -c "^\[  FAILED  \] [a-z]" "$out/gpu_fwd_tests.log")
bwd_fail=$(grep -E "^\[  FAILED  \] [a-z]" "$out/gpu_bwd_tests.log" | grep -vcE "m2_all_heads/raw_off_(saved|replay)_normal|ragged.*/raw_fused_(saved|replay)_normal")
ratio=$(grep -E "^\| 4doc:g:off:replay \| fwd/fwd_intra " "$out/ab-v12.log" | awk -F'|' '{print $6}' | tr -d ' ')
if [ "$fwd_fail" = 0 ] && [ "$bwd_fail" = 0 ] && awk -v r="${ratio:-9}" 'BEGIN{exit !(r < 0.99)}'; then
  echo "keeping v12 (fwd_intra ratio $ratio)"
else
  echo "keeping v10b (fwd fails $fwd_fail, new bwd fails $bwd_fail, fwd_intra ratio ${ratio:-none})"
  cp $V10B $bin/libkda.so
fi
md5sum $bin/libkda.so
bash scripts/device-matrix.sh small 1doc
tar -C "$out" -czf "$out/call-c-logs.tgz" $(cd "$out" && ls *.log *.json *.txt) && (cd "$out" && rm -f *.log *.json *.txt)
