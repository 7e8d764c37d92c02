#!/usr/bin/env bash
# Session 29, device call A: v47 - (1) on the saved path the 16-column state pass forms o of a long
# sequence's last o_tail chunks itself (KDA_O_TAIL_CHUNKS, default 8) instead of fwd_output, which
# could start them only after the chain's end; (2) bwd_reduce copies the partials through shared
# memory with many threads and adds them in the same order. Neither changes a bit: o comes from
# the same mma in the same order either way, and the reduction's additions are the old loop's.
# Carried: libkda.so = v47 (working tree over 14d9c9e), libkda-v45.so = 14d9c9e's kernels (v45).
set -u
. scripts/device-env.sh
export LIB=$bin/libkda.so HEAD=$bin/libkda-v45.so
pack_logs call-a
check_build v47 16 32; pack_logs call-a
seed_check v47 2512064; pack_logs call-a # fresh inputs: no earlier session used this seed
ab v47-small "$LIB" "$HEAD" 200 'R2:*:*:*,m2:*:*:*' fwd,bwd,fwd+bwd | grep -vE '/fwd_intra|/bwd_intra'; pack_logs call-a
# the tail's length: the saved keys' forward against v45 (which ignores the variable)
for t in 0 4 16 24; do
  KDA_O_TAIL_CHUNKS=$t AB_SHOW='\| fwd \||fwd_state|fwd_output' ab tail$t "$LIB" "$HEAD" 60 'R2:*:*:saved,m2:*:*:saved' fwd
  pack_logs call-a
done
sanitize 16 memcheck racecheck; pack_logs call-a
find "$out" -name '*.log' -o -name '*.json' | grep -v results/ | xargs rm -f
