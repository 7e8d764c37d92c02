#!/usr/bin/env bash
# Device run (issue 7): the rounding-regression self-test. The normal build and the self-test
# build (.carry/bin/libkda-mism.so, cmake -DKDA_BWD_MISMATCHED_DIAGONAL=ON: the Aqk diagonal pair
# of the gate gradient formed from mismatched TF32 operands) on the same inputs, both decays, all
# heads of the small rows; then the before/after accuracy table (normal build = before).
set -u
. "$(dirname "$0")/device-env.sh"
rows=${ROWS:-'m2:raw:off:saved,m2:g:fused:saved,R2:raw:fused:replay'}
for lib in libkda libkda-mism; do
  timeout 200 $bin/kda-bench --log-level warn --library $bin/$lib.so --rows "$rows" --ops bwd --no-timing --check \
    --decay normal,fast --out "$out/selftest-$lib.json" --force > "$out/selftest-$lib.log" 2>&1
  echo "$lib --check exit $?"
done
$bin/kda-bench table "$out/selftest-libkda.json" "$out/selftest-libkda-mism.json" > "$out/selftest-table.md" 2>&1
grep -E "^\| .*(dg|dx|dA_log|ddt_bias|dq|dbeta) " "$out/selftest-table.md" | head -40
