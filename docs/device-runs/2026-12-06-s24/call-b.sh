#!/usr/bin/env bash
# Session 24, device call B (after call A's checks passed; libraries as in call-a.sh). synccheck of
# v43; the matrix's small part (m2, R2: 16 keys, FP64 checks, repeat) of v43; v43 against v39 on
# four big-row keys (fwd, bwd; 9 samples); the steps v41, v42, v43 each against the one before on
# R2 (stage times).
set -u
. scripts/device-env.sh
nvidia-smi --query-gpu=name --format=csv,noheader
export LIB=$bin/libkda-v43.so
t0=$SECONDS
sanitize 16 synccheck; echo "[synccheck $((SECONDS - t0))s]"
bash scripts/device-matrix.sh small; echo "[matrix $((SECONDS - t0))s]"
timeout 200 $bin/kda-bench --log-level warn --library "$LIB" --before $bin/libkda-v39.so \
  --rows '4doc:g:off:saved,1doc:raw:fused:saved,4doc:raw:off:replay,1doc:g:fused:replay' --ops fwd,bwd --samples 9 \
  --out "$out/ab-big-v43.json" > "$out/ab-big-v43.log" 2>&1
echo "A/B big exit $?"; grep -E "^\| [0-9A-Za-z]+:" "$out/ab-big-v43.log"; echo "[big $((SECONDS - t0))s]"
export AB_SHOW='bwd_grad|fwd_intra|fwd_output|[|] bwd [|]|[|] fwd [|]'
ab v41-R2 "$bin/libkda-v41.so" "$bin/libkda.so" 70 'R2:raw:*:*' bwd; echo "[v41 $((SECONDS - t0))s]"
ab v42-R2 "$bin/libkda-v42.so" "$bin/libkda-v41.so" 90 'R2:*:*:saved' fwd,bwd; echo "[v42 $((SECONDS - t0))s]"
ab v43-R2 "$LIB" "$bin/libkda-v42.so" 90 'R2:*:*:saved' fwd,bwd; echo "[v43 $((SECONDS - t0))s]"
tar -C "$out" -czf "$out/call-b-logs.tgz" $(cd "$out" && ls *.log *.json 2>/dev/null) && (cd "$out" && rm -f *.log *.json)
