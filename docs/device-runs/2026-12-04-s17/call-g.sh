#!/usr/bin/env bash
# Session 17, device call G (an experiment, no build to land): what the saved set's stores cost the
# 16-column forward state pass. libkda-novn.so: v26 with the chain warps' v_new stores left out;
# libkda-noh.so: v26 with the output warps' h stores left out (both give a wrong saved set:
# timing only). Against v26 (libkda.so), forward stages of the saved path.
set -u
. scripts/device-env.sh
kb="$bin/kda-bench --log-level warn"
for v in novn noh; do
  timeout 100 $kb --library $bin/libkda-$v.so --before $bin/libkda.so --rows 'R2:g:off:saved,m2:g:off:saved' \
    --ops fwd --stages --out "$out/ab-$v.json" > "$out/ab-$v.log" 2>&1
  echo "A/B $v vs v26 exit $?"; grep -E "^\| [0-9A-Za-z]+:.*fwd" "$out/ab-$v.log"
done
tar -C "$out" -czf "$out/call-g-logs.tgz" $(cd "$out" && ls *.log *.json) && (cd "$out" && rm -f *.log *.json)
