#!/usr/bin/env bash
# Device run: Nsight Compute on one launch of each backward kernel of a row (default 4doc:g:off:saved):
# duration, occupancy, stall reasons, and source-line counters of bwd_grad as CSV. ROW / KERNELS override.
set -u
. "$(dirname "$0")/device-env.sh"
row=${ROW:-4doc:g:off:saved}
timeout 240 ncu --clock-control none --kernel-name "regex:${KERNELS:-bwd_(grad|dh)}" --launch-count ${LAUNCHES:-2} \
  --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SourceCounters \
  -o /tmp/bwd_prof $bin/kda-bench --rows "$row" --ops bwd --samples 1 --calls 1 --warmup 0 \
  --out /tmp/p.json --force --log-level warn > "$out/ncu-run.log" 2>&1
ncu -i /tmp/bwd_prof.ncu-rep --page details --print-details all > "$out/bwd_details.txt" 2>&1
ncu -i /tmp/bwd_prof.ncu-rep --page source --csv --print-source sass --kernel-name regex:bwd_grad > "$out/bwd_grad_sass.csv" 2>&1
grep -E "bwd_|Duration|Registers Per|Achieved Occ|Warp Cycles Per Issued|Issue Slots Busy|Compute \(SM\) Thr|Memory Thr" "$out/bwd_details.txt" | head -40
