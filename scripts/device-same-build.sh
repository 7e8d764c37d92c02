#!/usr/bin/env bash
# Device run (issue 6): the same build against itself on every seed row, fwd and bwd ops,
# interleaved samples; every row must come out "same". Prints the table rows.
set -u
. "$(dirname "$0")/device-env.sh"
timeout ${SAME_TIMEOUT:-200} $bin/kda-bench --log-level warn --library $bin/libkda.so --before $bin/libkda-same.so \
  --rows "${ROWS:-m2:g:off:saved,R2:g:off:saved,1doc:g:fused:saved,4doc:raw:off:saved}" --ops "${OPS:-fwd,bwd}" \
  --out "$out/same-all.json" --force > "$out/same-all.log" 2>&1
echo "same build, every row: exit $?"; grep -E "^\| (m2|R2|1doc|4doc)" "$out/same-all.log"
