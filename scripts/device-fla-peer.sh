#!/usr/bin/env bash
# Device run for issue 7: FLA chunk_kda beside kda-bench on the same inputs (docs/fla-peer.md).
# kda-bench times and checks ROWS in both decays (DECAYS) and dumps their inputs and FP64
# reference outputs (into /tmp: big rows dump gigabytes); then ONE fla_peer.py process runs
# every dump (Triton autotunes once per head count), and `kda-bench table` prints FLA (before)
# beside kda-bench (after). Needs .whl/ (pip download, docs/fla-peer.md) carried.
# Writes $OUT/ours.json, $OUT/fla.json, $OUT/table.md and the logs (fla-peer-logs.tgz).
set -u
. "$(dirname "$0")/device-env.sh"
rows=${ROWS:-'m2:g:off:saved,m2:raw:off:saved'}
decays=${DECAYS:-normal,fast}
dumps_root=${DUMPS:-/tmp/kda-dumps}
pip install --no-index --no-deps --target /tmp/site .whl/*.whl > "$out/pip.log" 2>&1 || { tail -5 "$out/pip.log"; exit 1; }
export PYTHONPATH=/tmp/site
rm -rf "$dumps_root"
# Both decays in one kda-bench run: one dump folder per (row, decay) (docs/dump-format.md).
timeout ${OURS_TIMEOUT:-300} $bin/kda-bench --log-level warn --rows "$rows" --decay "$decays" --ops "${OPS:-fwd,bwd,fwd+bwd}" \
  --check ${CHECK_HEADS:+--check-heads $CHECK_HEADS} ${OURS_EXTRA:-} --dump "$dumps_root" --out "$out/ours.json" --force \
  > "$out/ours.log" 2>&1
echo "kda-bench exit $? (1 = a check above its threshold: see ours.log)"
dump_args=()
for m in $(find "$dumps_root" -name manifest.json | sort); do dump_args+=(--dump "$(dirname "$m")"); done
start=$(date +%s)
timeout ${FLA_TIMEOUT:-420} python3 scripts/fla_peer.py "${dump_args[@]}" ${FLA_EXTRA:-} --out "$out/fla.json" --force \
  > "$out/fla.log" 2>&1
echo "fla_peer exit $? after $(( $(date +%s) - start )) s"
grep -E "median|error|Error" "$out/fla.log" | grep -v "^per-head" | head -40
# fla_peer.py --per-head (in FLA_EXTRA): each checked head's dA_log beside ours
grep -E "^per-head|^  (tensor|dA_log) " "$out/fla.log" | head -${PER_HEAD_LINES:-80}
if [ -f "$out/fla.json" ] && [ -f "$out/ours.json" ]; then
  $bin/kda-bench table "$out/fla.json" "$out/ours.json" > "$out/table.md" 2>&1
  echo "== table: FLA = before, kda-bench = after"; head -c ${TABLE_CHARS:-6000} "$out/table.md"
fi
# A run brings back only a few files: the rest travels as one archive.
tar -C "$out" -czf "$out/fla-peer-logs.tgz" pip.log ours.log fla.log 2>/dev/null && rm -f "$out"/pip.log "$out"/ours.log "$out"/fla.log
