#!/usr/bin/env bash
# Session 16, device call B: why call A's overlap gave R2 nothing. Stage times (--stages) of v23a
# (call A's build: a flag with a GPU-scope fence after every chunk) and v23c (flags published
# every 4 chunks, one fence) against the session's base (30a5991, v22).
set -u
. scripts/device-env.sh
HEAD=$bin/libkda-base.so
kb="$bin/kda-bench --log-level warn"
for v in v23a v23c; do
  timeout 250 $kb --library $bin/libkda-$v.so --before $HEAD --rows 'R2:g:off:saved,R2:raw:fused:replay,m2:g:off:saved' \
    --ops bwd,fwd+bwd --stages --out "$out/stages-$v.json" > "$out/stages-$v.log" 2>&1
  echo "stages $v exit $?"; grep -E "^\| [0-9A-Za-z]+:" "$out/stages-$v.log"
done
tar -C "$out" -czf "$out/call-b-logs.tgz" $(cd "$out" && ls *.log *.json) && (cd "$out" && rm -f *.log *.json)
