#!/usr/bin/env bash
# Device run: Nsight Compute on one forward of 1doc (stall reasons by source line), sanitizers on m2.
set -u
. "$(dirname "$0")/device-env.sh"
sections="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SourceCounters --section MemoryWorkloadAnalysis"
timeout 200 ncu --clock-control none --kernel-name regex:fwd_ --launch-count 2 $sections --print-details all \
  $bin/kda-bench --rows 1doc:g:off:replay --ops fwd --samples 1 --calls 1 --warmup 0 --out /tmp/p.json --force \
  --log-level warn > "$out/ncu-1doc.txt" 2>&1
grep -E "fwd_|Duration|Throughput|Registers|Achieved Occupancy|Theoretical Occupancy|Warp Cycles Per Issued|Stall|intra.cu:|state_pass.cu:|Block Limit" "$out/ncu-1doc.txt" | head -90
echo "== compute-sanitizer"
timeout 150 compute-sanitizer --tool memcheck $bin/gpu_fwd_tests --gtest_filter='*m2_all_heads/raw_fused_fast:*ragged*/g_off_normal:fwd_determinism*' > "$out/memcheck.log" 2>&1; tail -3 "$out/memcheck.log"
timeout 150 compute-sanitizer --tool racecheck $bin/gpu_fwd_tests --gtest_filter='*m2_all_heads/raw_fused_normal' > "$out/racecheck.log" 2>&1; tail -3 "$out/racecheck.log"
timeout 100 compute-sanitizer --tool synccheck $bin/gpu_fwd_tests --gtest_filter='*m2_all_heads/g_off_fast' > "$out/synccheck.log" 2>&1; tail -2 "$out/synccheck.log"
for vt in 32 64; do KDA_STATE_VTILE=$vt $bin/kda-bench --rows '1doc:g:fused:saved,m2:g:off:saved' --ops fwd --out /tmp/x.json --force --log-level warn; done
