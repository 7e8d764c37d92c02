#!/usr/bin/env bash
# Copies the binaries built here into .carry/bin (git-ignored), the folder a device run carries
# (docs/device.md): a build made on a developer machine runs on the device when it needs only
# glibc, libstdc++ and the CUDA libraries. Google Benchmark's shared library travels with it.
set -euo pipefail
build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/.carry/bin"
rm -rf "$out" && mkdir -p "$out"
for f in src/cli/kda-bench kernels/libkda.so tests/gpu_fwd_tests tests/gpu_bwd_tests tests/gpu_timing_tests bench/reference_bench \
         bench/stage_bench; do
  [ -f "$root/$build/$f" ] && cp "$root/$build/$f" "$out/"
done
for lib in libbenchmark.so.1debian libcudart.so.13; do
  p=$(ldconfig -p | awk -v l="$lib" '$1 == l {print $NF; exit}')
  [ -n "$p" ] && cp -L "$p" "$out/"
done
# The release check (scripts/device-release-check.sh) compares the build with a byte-identical copy
# of itself ("same") and with a deliberately slowed build, if build-slow/ has one
# (cmake -S . -B build-slow -DKDA_SLOW_BUILD_NOOP_KERNELS=4 && cmake --build build-slow --target kda).
cp "$out/libkda.so" "$out/libkda-same.so"
[ -f "$root/build-slow/kernels/libkda.so" ] && cp "$root/build-slow/kernels/libkda.so" "$out/libkda-slow.so"
# The accuracy self-test build (issue 7): cmake -S . -B build-mism -DKDA_BWD_MISMATCHED_DIAGONAL=ON.
[ -f "$root/build-mism/kernels/libkda.so" ] && cp "$root/build-mism/kernels/libkda.so" "$out/libkda-mism.so"
du -sh "$out"
ls "$out"
