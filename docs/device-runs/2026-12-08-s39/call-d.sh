#!/usr/bin/env bash
# Session 39, call D (not run in session 39; written for v58b, now for v58c): the code warm-up
# whose g form skips stages 3a and 3c and whose raw form skips nothing, so that neither form's
# register allocation moves (docs/wip/v58c-grad-code-warmup.patch). Its timelines (is the first
# wave's 3d - 4 at the later waves' pace on the g keys?), the checks, then v58c against main in
# both orders (the control reads the after side of R2:g:off:saved up to 2.5 % faster whatever it
# holds; with main as the after side, ratios above 1 mean v58c faster), every key of R2 and m2
# (the replay keys run the changed bwd_grad without a warm-up), and the control.
# Carried: .carry/bin/libkda.so (main = v56); xz: libkda-v58c.so, libkda-tl-v58c.so. Logs: $OUT.
set -u
. scripts/device-env.sh
export HEAD=$bin/libkda.so
call_begin call-d
out=$top/tl-v58c; mkdir -p "$out"
for key in R2:g:off:saved R2:g:fused:saved; do TL=$bin/libkda-tl-v58c.so timeline $key fwd+bwd; done
tl_waves grad grad_warmup
out=$top; pack_logs call-d
LIB=$bin/libkda-v58c.so check_build v58c; pack_logs call-d
LIB=$bin/libkda-v58c.so sanitize 16 memcheck racecheck synccheck; pack_logs call-d
rows='R2:*:*:*,m2:*:*:*'
AB_SHOW='\| (bwd|fwd\+bwd) \|' ab main-v58c $HEAD $bin/libkda-v58c.so 120 "$rows" bwd,fwd+bwd --samples 25; pack_logs call-d
AB_SHOW='\| (bwd|fwd\+bwd) \|' ab v58c-main $bin/libkda-v58c.so $HEAD 120 "$rows" bwd,fwd+bwd --samples 25; pack_logs call-d
cp $HEAD $bin/libkda-main2.so
AB_SHOW='\| (bwd|fwd\+bwd) \|' ab ctl $bin/libkda-main2.so $HEAD 120 "$rows" bwd,fwd+bwd --samples 25; pack_logs call-d
