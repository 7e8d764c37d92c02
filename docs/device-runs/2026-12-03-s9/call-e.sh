#!/usr/bin/env bash
# Session 9, device calls E and F (run inline, recorded here): the keys the matrix's time limit
# cut, with the matrix's options: E = 4doc:raw:fused:replay, F = 4doc:raw:fused:saved
# (matrix-big-last.json, matrix-big-last2.json). Merged on the development machine:
#   kda-bench merge matrix-small.json matrix-big.partial.json matrix-big-last.json \
#     matrix-big-last2.json --out matrix.json
set -u
. scripts/device-env.sh
key=${1:-4doc:raw:fused:replay}
name=${2:-matrix-big-last}
d=$out/results/$($bin/kda-bench nightly --print-slug)
mkdir -p "$d"
timeout 120 $bin/kda-bench --log-level warn --ops fwd,bwd,fwd+bwd --check --repeat-check 2 --force \
  --rows "$key" --check-heads 1 --out "$d/$name.json" > "$out/$name.log" 2>&1
echo "exit $?"
grep -E "median|FAIL|DIFFERENT|repeat" "$out/$name.log" | cut -c1-100
