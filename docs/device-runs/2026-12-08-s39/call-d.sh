#!/usr/bin/env bash
# Session 39, call D: is v58b faster than main, or was call C's reading the A/B's order? The
# control reads the after side of R2:g:off:saved up to 2.5 % faster whatever it holds, so v58b
# against main is timed in both orders (main as the after side: ratios above 1 mean v58b faster),
# on every key of R2 and m2 (the replay keys run v58b's changed bwd_grad without a warm-up), with
# the control. Carried: .carry/bin/libkda.so (main = v56); xz: libkda-v58b.so. Logs: $OUT.
set -u
. scripts/device-env.sh
export HEAD=$bin/libkda.so
call_begin call-d
rows='R2:*:*:*,m2:*:*:*'
AB_SHOW='\| (bwd|fwd\+bwd) \|' ab main-v58b $HEAD $bin/libkda-v58b.so 120 "$rows" bwd,fwd+bwd --samples 25; pack_logs call-d
AB_SHOW='\| (bwd|fwd\+bwd) \|' ab v58b-main $bin/libkda-v58b.so $HEAD 120 "$rows" bwd,fwd+bwd --samples 25; pack_logs call-d
cp $HEAD $bin/libkda-main2.so
AB_SHOW='\| (bwd|fwd\+bwd) \|' ab ctl $bin/libkda-main2.so $HEAD 120 "$rows" bwd,fwd+bwd --samples 25; pack_logs call-d
