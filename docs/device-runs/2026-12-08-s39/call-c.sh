#!/usr/bin/env bash
# Session 39, call C: v58b, the code warm-up skipping stages 3a - 3c so that it leads the first
# wave into 3d - 4 by about 20 us instead of 10 (call B: the wave caught up with v58's warm-up and
# ended with it). The skip moved bwd_grad's register allocation (g:off: 7 values spilled around
# stage 3b), so v58b is also timed with KDA_GRAD_WARMUP=0 against main: the code change alone.
# Carried: .carry/bin/libkda.so (main = v56); xz: libkda-v58b.so, libkda-tl-v58b.so. Logs: $OUT.
set -u
. scripts/device-env.sh
export HEAD=$bin/libkda.so
call_begin call-c
out=$top/tl-v58b; mkdir -p "$out"
for key in R2:g:off:saved R2:raw:fused:saved R2:g:fused:saved; do TL=$bin/libkda-tl-v58b.so timeline $key fwd+bwd; done
tl_waves grad grad_warmup
out=$top; pack_logs call-c
LIB=$bin/libkda-v58b.so check_build v58b; pack_logs call-c
LIB=$bin/libkda-v58b.so sanitize 16 memcheck synccheck; pack_logs call-c
AB_SHOW='\| (bwd|fwd\+bwd) \|' ab v58b-main $bin/libkda-v58b.so $HEAD 120 'R2:*:*:saved,m2:*:*:saved' bwd,fwd+bwd --samples 25; pack_logs call-c
KDA_GRAD_WARMUP=0 AB_SHOW='\| (bwd|fwd\+bwd) \|' ab v58b-nowarm-main $bin/libkda-v58b.so $HEAD 120 'R2:*:*:saved,m2:*:*:saved' bwd,fwd+bwd --samples 25; pack_logs call-c
cp $HEAD $bin/libkda-main2.so
AB_SHOW='\| (bwd|fwd\+bwd) \|' ab ctl $bin/libkda-main2.so $HEAD 120 'R2:*:*:saved,m2:*:*:saved' bwd,fwd+bwd --samples 25; pack_logs call-c
