#!/usr/bin/env bash
# Session 8, device call D (run inline, recorded here): sanitizers on the v8b build in .carry/bin.
set -u
. scripts/device-env.sh
timeout 60 compute-sanitizer --tool memcheck $bin/gpu_bwd_tests --gtest_filter='*m2_all_heads/raw_fused_replay_fast:bwd_determinism.same_bits_for_every_state_vtile' > $out/memcheck.log 2>&1; echo "memcheck $?: $(tail -1 $out/memcheck.log)"
timeout 60 compute-sanitizer --tool racecheck $bin/gpu_bwd_tests --gtest_filter='*m2_all_heads/raw_fused_saved_normal:*m2_all_heads/g_off_replay_fast' > $out/racecheck.log 2>&1; echo "racecheck $?: $(tail -1 $out/racecheck.log)"
timeout 50 compute-sanitizer --tool synccheck $bin/gpu_bwd_tests --gtest_filter='*m2_all_heads/g_off_saved_fast' > $out/synccheck.log 2>&1; echo "synccheck $?: $(tail -1 $out/synccheck.log)"
timeout 50 compute-sanitizer --tool memcheck $bin/gpu_fwd_tests --gtest_filter='*m2*' > $out/memcheck-fwd.log 2>&1; echo "memcheck fwd $?: $(tail -1 $out/memcheck-fwd.log)"
