#!/usr/bin/env bash
# Builds everything and runs every ctest suite: the project's test command, and what CI runs
# (.ci/run). GPU tests skip themselves without a CUDA device ("[  SKIPPED ]"; ctest counts them as
# skipped). Exits non-zero on any failure.
#   KDA_BUILD_DIR  build folder, relative to the repository root or absolute (default: build)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

build_dir=${KDA_BUILD_DIR:-build}
jobs=$(nproc)
started=$SECONDS

scripts/install-deps.sh
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build "$build_dir" -j"$jobs"
ctest --test-dir "$build_dir" --output-on-failure --no-tests=error -j"$jobs"

echo "scripts/test.sh: all tests passed in $((SECONDS - started)) s"
