#!/usr/bin/env bash
# Device run: every row key of the seed scenarios (m2, R2, 1doc, 4doc x 8 variants = 32) timed for
# fwd, bwd and fwd+bwd, checked against FP64 (all heads on m2/R2, CHECK_HEADS sampled heads on the
# big rows, both decays) and repeated bit for bit. Two invocations (small rows, big rows) merged
# into $OUT/results/<gpu-class>/matrix.json; that file doubles as the nightly baseline
# (docs/nightly.md): copy it to results/<gpu-class>/baseline.json when it is accepted.
# Session 5: the small rows took about 110 s, 13 of the 16 big keys 360 s (all 16: about 440 s);
# the two limits together fit one 600 s device call, with nothing else in it.
set -u
. "$(dirname "$0")/device-env.sh"
slug=$($bin/kda-bench nightly --print-slug)
dir="$out/results/$slug"
mkdir -p "$dir"
kb="$bin/kda-bench --log-level warn --ops fwd,bwd,fwd+bwd --check --repeat-check 2 --force"
status=0
timeout ${SMALL_TIMEOUT:-140} $kb --rows 'm2:*:*:*,R2:*:*:*' --out "$dir/matrix-small.json" > "$out/matrix-small.log" 2>&1
rc=$?; echo "small rows exit $rc"; [ $rc -le 1 ] || status=$rc
timeout ${BIG_TIMEOUT:-450} $kb --rows '1doc:*:*:*,4doc:*:*:*' --check-heads "${CHECK_HEADS:-1}" \
  --out "$dir/matrix-big.json" > "$out/matrix-big.log" 2>&1
rc=$?; echo "big rows exit $rc"; [ $rc -le 1 ] || status=$rc
$bin/kda-bench merge "$dir/matrix-small.json" "$dir/matrix-big.json" --out "$dir/matrix.json" --force
echo "merge exit $?"
grep -hE " median |DIFFERENT|FAIL" "$out/matrix-small.log" "$out/matrix-big.log" | grep -E "(fwd|bwd|fwd\+bwd) +median|DIFFERENT" | cut -c1-75
exit $status
