#!/usr/bin/env bash
# Device run: every row key of the seed scenarios (m2, R2, 1doc, 4doc x 8 variants = 32) timed for
# fwd, bwd and fwd+bwd, checked against FP64 (all heads on m2/R2, CHECK_HEADS sampled heads on the
# big rows, both decays) and repeated bit for bit, into $OUT/results/<gpu-class>/matrix-<part>.json.
#   scripts/device-matrix.sh [small] [1doc] [4doc]     (no argument: all three parts)
# Session 9 on the H200: small (m2, R2) about 110 s, 1doc and 4doc about 235 s each, so all three
# (about 580 s) overrun a 600 s device call with anything else in it: run `small 1doc` in one call
# and `4doc` in the next. The parts merge into matrix.json (here when one call ran all three,
# otherwise on the development machine:
#   kda-bench merge matrix-small.json matrix-1doc.json matrix-4doc.json --out matrix.json);
# that file doubles as the nightly baseline (docs/nightly.md): copy it to
# results/<gpu-class>/baseline.json when it is accepted.
# A part cut by its time limit keeps the keys it finished in matrix-<part>.partial.json.
set -u
. "$(dirname "$0")/device-env.sh"
slug=$($bin/kda-bench nightly --print-slug)
dir="$out/results/$slug"
mkdir -p "$dir"
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(small 1doc 4doc)
kb="$bin/kda-bench --log-level warn --ops fwd,bwd,fwd+bwd --check --repeat-check 2 --force"
status=0
for part in "${parts[@]}"; do
  case "$part" in
  small) rows='m2:*:*:*,R2:*:*:*' limit=${SMALL_TIMEOUT:-140} heads=() ;;
  1doc | 4doc) rows="$part:*:*:*" limit=${BIG_TIMEOUT:-290} heads=(--check-heads "${CHECK_HEADS:-1}") ;;
  *) echo "device-matrix: unknown part '$part' (small, 1doc, 4doc)" >&2; exit 2 ;;
  esac
  timeout "$limit" $kb --rows "$rows" "${heads[@]}" --out "$dir/matrix-$part.json" > "$out/matrix-$part.log" 2>&1
  rc=$?; echo "$part rows exit $rc"; [ $rc -le 1 ] || status=$rc
  grep -hE " median |DIFFERENT" "$out/matrix-$part.log" | grep -E "(fwd|bwd|fwd\+bwd) +median|DIFFERENT" | cut -c1-75
done
if [ -f "$dir/matrix-small.json" ] && [ -f "$dir/matrix-1doc.json" ] && [ -f "$dir/matrix-4doc.json" ]; then
  $bin/kda-bench merge "$dir/matrix-small.json" "$dir/matrix-1doc.json" "$dir/matrix-4doc.json" \
    --out "$dir/matrix.json" --force
  echo "merge exit $?"
fi
exit $status
