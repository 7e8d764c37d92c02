#!/usr/bin/env bash
# Device run: forward stage timing for both state-pass V tiles, sanitizers on m2, reference speed.
set -u
. "$(dirname "$0")/device-env.sh"
rows='m2:g:off:saved,m2:raw:fused:replay,R2:g:off:saved,1doc:g:fused:saved,4doc:raw:off:saved,4doc:g:off:replay'
for vt in 64 32; do
  echo "== KDA_STATE_VTILE=$vt"
  KDA_STATE_VTILE=$vt timeout 120 $bin/kda-bench --rows "$rows" --ops fwd --stages --out "$out/fwd-vt$vt.json" --force \
    --log-level warn 2>&1 | tee "$out/stages-vt$vt.log"
done
echo "== default V tile, fast decay"
timeout 60 $bin/kda-bench --rows "$rows" --ops fwd --stages --decay fast --out "$out/fwd-fast.json" --force --log-level warn 2>&1 | tail -20
timeout 120 $bin/gpu_fwd_tests --gtest_filter='fwd_determinism*' 2>&1 | tail -3
echo "== compute-sanitizer"
timeout 150 compute-sanitizer --tool memcheck $bin/gpu_fwd_tests --gtest_filter='*m2_all_heads/1:*ragged*/6' > "$out/memcheck.log" 2>&1; tail -4 "$out/memcheck.log"
timeout 150 compute-sanitizer --tool racecheck $bin/gpu_fwd_tests --gtest_filter='*m2_all_heads/6' > "$out/racecheck.log" 2>&1; tail -4 "$out/racecheck.log"
echo "== reference speed (16 cores)"
timeout 150 $bin/reference_bench --benchmark_filter='m2|4doc' 2>&1 | tee "$out/reference_bench.log" | tail -12
