#!/usr/bin/env bash
# Session 11, device call G (run inline as one command on the warm machine after call F; recorded
# here as it ran): a nightly of v15 (v14 + v15, the working tree of commit a91012f) against the
# baseline (v10b + v11) on the five replay keys of the big rows, which v15 changes, accuracy on the
# baseline's own sampled heads (commit 46180fe).
. scripts/device-env.sh; timeout 280 .carry/bin/kda-bench --log-level warn nightly --baseline results/H200-sm_90-132SMs/baseline.json --results-dir "$out/results" --rows '4doc:g:off:replay,4doc:g:fused:replay,4doc:raw:off:replay,4doc:raw:fused:replay,1doc:g:off:replay' > "$out/nightly-g.log" 2>&1; echo "nightly exit $?"; grep -E "^\|" "$out/nightly-g.log" | grep -E "\| (fwd|bwd|fwd\+bwd) \|" | head -16; tail -3 "$out/nightly-g.log"; cp "$out"/results/*/*.json "$out/nightly-g.json"; rm -rf "$out/results"
