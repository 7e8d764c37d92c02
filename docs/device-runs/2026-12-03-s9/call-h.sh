#!/usr/bin/env bash
# Session 9, device call H: data for the next session. Nsight Compute (full set, per-instruction
# stall samples) on fwd_intra of 4doc:g:off (run twice per step on the replay path), and
# compute-sanitizer synccheck on m2 for v9b's bwd_grad (16-warp raw form, 8-warp g form).
set -u
. scripts/device-env.sh
timeout 40 compute-sanitizer --tool synccheck $bin/gpu_bwd_tests \
  --gtest_filter='*m2_all_heads/raw_fused_saved_normal:*m2_all_heads/g_off_replay_fast' > "$out/synccheck.log" 2>&1
echo "synccheck v9b exit $?: $(tail -1 "$out/synccheck.log")"
timeout 90 ncu --clock-control none --kernel-name regex:fwd_intra --launch-skip 1 --launch-count 1 --set full \
  --import-source yes -o "$out/ncu-intra" $bin/kda-bench --log-level warn --rows 4doc:g:off:replay --ops fwd \
  --samples 1 --calls 1 --warmup 1 --out "$out/ncu-run.json" > "$out/ncu.log" 2>&1
echo "ncu exit $?"
ncu -i "$out/ncu-intra.ncu-rep" --page details --csv > "$out/ncu-intra-details.csv" 2>&1
ncu -i "$out/ncu-intra.ncu-rep" --page source --csv --print-source sass > "$out/ncu-intra-sass.csv" 2>&1
gzip -9 "$out/ncu-intra-sass.csv"
grep -E '"(Duration|Warp Cycles Per Issued Instruction|Issue Slots Busy|Achieved Occupancy|DRAM Throughput|Compute \(SM\) Throughput)"' "$out/ncu-intra-details.csv" | cut -d, -f13- | head
rm -f "$out/ncu-intra.ncu-rep"
