#!/usr/bin/env bash
# Session 31, call A. Carried: libkda.so = v50, libkda-v49.so = v49 alone (HEAD fb4ae71 with
# docs/wip/v49-bwd-reduce-wide.patch), libkda-v48.so = HEAD (v48), libkda-tl.so = v50's timeline build. v50 = v49 (bwd_reduce over 8
# blocks a head, segments of 256 chunks: session 30's patch, unchanged) + bwd_reduce launched as
# bwd_grad's programmatic dependent (resident when bwd_grad ends) + the 16-column forward pass's
# first chunk with o from a per-sequence table the host fills (kda_plan::o_first; a refactor).
# Every bit as v48 is the claim: same_bits on every key of m2, R2, ragged, the GPU tests, a fresh
# seed, then the A/Bs and the sanitizers; on an H200 also the small matrix. Logs: $OUT (call-a).
set -u
. scripts/device-env.sh
export LIB=$bin/libkda.so HEAD=$bin/libkda-v48.so
pack_logs call-a
check_build v50; pack_logs call-a
seed_check v50 2512066; pack_logs call-a
AB_SHOW='\| (bwd|fwd\+bwd) \||bwd_reduce' ab v50-v48 "$LIB" "$HEAD" 150 'R2:*:*:*,m2:*:*:*' bwd,fwd+bwd; pack_logs call-a
AB_SHOW='\| bwd \||bwd_reduce' ab v50-v49 "$LIB" "$bin/libkda-v49.so" 60 'R2:raw:*:*,m2:raw:*:*' bwd; pack_logs call-a
AB_SHOW='\| fwd \|' ab v50-v48-fwd "$LIB" "$HEAD" 60 'R2:*:*:saved,m2:*:*:saved' fwd; pack_logs call-a
# v50's timeline build (libkda-tl.so). As run, these were the loop of session 30's call-a.sh;
# scripts/device-env.sh's timeline helper (added after the call) holds the same commands.
timeline R2:raw:fused:saved fwd+bwd
timeline R2:raw:fused:replay fwd+bwd
pack_logs call-a
sanitize 16 memcheck racecheck; pack_logs call-a
if grep -q H200 "$out/card.txt"; then SMALL_TIMEOUT=200 scripts/device-matrix.sh small; pack_logs call-a; fi
find "$out" -name '*.log' -o -name '*.json' | grep -v results/ | xargs rm -f
