#!/usr/bin/env bash
# Device run: Nsight Compute source-line counters of the forward intra stage, g and raw forms.
set -u
. "$(dirname "$0")/device-env.sh"
for form in g raw; do
  timeout 150 ncu --clock-control none --kernel-name regex:fwd_intra --launch-count 1 \
    --section SourceCounters --section WarpStateStats --section LaunchStats --section Occupancy -o "/tmp/intra_$form" \
    $bin/kda-bench --rows "4doc:$form:off:replay" --ops fwd --samples 1 --calls 1 --warmup 0 --out /tmp/p.json --force \
    --log-level warn > "$out/ncu-$form.log" 2>&1
  ncu -i "/tmp/intra_$form.ncu-rep" --page source --csv --print-source sass > "$out/intra_${form}_sass.csv" 2>&1
  ncu -i "/tmp/intra_$form.ncu-rep" --page details --print-details all > "$out/intra_${form}_details.txt" 2>&1
  ls -la "$out"
  grep -E "Duration|Instructions Executed|Registers|Block Limit|Achieved Occ" "$out/intra_${form}_details.txt" | head
done
