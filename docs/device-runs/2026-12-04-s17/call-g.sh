#!/usr/bin/env bash
# Session 17, device call G (an experiment, no build to land): what the saved set's stores cost the
# 16-column forward state pass. libkda-novn.so: v26 with the chain warps' v_new stores left out;
# libkda-noh.so: v26 with the output warps' h stores left out (both give a wrong saved set:
# timing only). Against v26 (libkda.so), forward stages of the saved path.
set -u
. scripts/device-env.sh
for v in novn noh; do
  AB_SHOW=fwd ab $v $bin/libkda-$v.so $bin/libkda.so 100 'R2:g:off:saved,m2:g:off:saved' fwd
done
tar -C "$out" -czf "$out/call-g-logs.tgz" $(cd "$out" && ls *.log *.json) && (cd "$out" && rm -f *.log *.json)
