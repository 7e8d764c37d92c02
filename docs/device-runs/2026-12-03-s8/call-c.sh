#!/usr/bin/env bash
# Session 8, device call C (the chosen build in .carry/bin): the timing of all 32 row keys
# (fwd, bwd, fwd+bwd; call B checks the
# accuracy of v8b), and dA_log over seeds: the FP64 check of the m2 raw keys at seeds 2-8 (normal decay),
# against the emulation's spread (bench/rounding_analysis row=m2 SEED).
set -u
. scripts/device-env.sh
kb="$bin/kda-bench --log-level warn"
for s in 2 3 4 5 6 7 8; do
  timeout 30 $kb --no-timing --check --decay normal --seed $s --ops bwd --rows 'm2:raw:off:saved,m2:raw:fused:saved' \
    --out "$out/seed-$s.json" > "$out/seed-$s.log" 2>&1
  echo "seed $s exit $?: $(grep -E '^\s+dA_log' "$out/seed-$s.log" | awk '{print $2, $6}' | tr '\n' ' ')"
done
timeout 120 $kb --rows 'm2:*:*:*,R2:*:*:*' --ops fwd,bwd,fwd+bwd --out "$out/matrix-small.json" > "$out/matrix-small.log" 2>&1
echo "matrix small exit $?"
timeout 330 $kb --rows '1doc:*:*:*,4doc:*:*:*' --ops fwd,bwd,fwd+bwd --out "$out/matrix-big.json" > "$out/matrix-big.log" 2>&1
echo "matrix big exit $?"
grep -hE " median " "$out/matrix-small.log" "$out/matrix-big.log" | cut -c1-60
tar -C "$out" -czf "$out/call-b-logs.tgz" $(cd "$out" && ls *.log *.json) && (cd "$out" && rm -f *.log *.json)
