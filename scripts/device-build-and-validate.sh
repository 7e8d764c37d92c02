#!/usr/bin/env bash
# Device run: configure and build the whole project ON the device (header-only deps it lacks come
# from .deps/, see docs/device.md), run every test there (GPU tests included), then the forward
# validation matrix: every gate x l2n variant on the four seed rows, both decays, bitwise repeat.
# With SRC set (e.g. .carry/src, a `git archive` of a commit), builds that tree instead of the
# working tree, so half-finished local edits never reach the device build.
set -u
out=${OUT:-/tmp/out}
deps="$PWD/.deps/usr"
cd "${SRC:-.}"
mkdir -p "$out"
{ cmake --version | head -1; nvcc --version | tail -1; g++ --version | head -1; } > "$out/toolchain.txt"
start=$(date +%s)
cmake -S . -B build-dev -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$deps" ${REV:+-DKDA_GIT_REVISION=$REV} > "$out/configure.log" 2>&1 \
  || { tail -30 "$out/configure.log"; exit 1; }
cmake --build build-dev -j 16 > "$out/build.log" 2>&1 || { grep -E "error" -A3 "$out/build.log" | head -40; exit 1; }
echo "configure + build on the device: $(( $(date +%s) - start )) s; warnings: $(grep -c 'warning' "$out/build.log")"
ctest --test-dir build-dev -j 8 --output-on-failure > "$out/ctest.log" 2>&1; tail -6 "$out/ctest.log"
rows='1doc:*:*:saved,4doc:*:*:saved,R2:*:*:saved,m2:*:*:saved'
timeout 400 build-dev/src/cli/kda-bench --rows "$rows" --ops fwd --check --check-heads 2 --repeat-check 3 \
  --out "$out/fwd-matrix.json" --force > "$out/fwd-matrix.log" 2>&1
echo "kda-bench exit code: $?"
grep -E "median|^  o |FAIL|DIFFERENT|error" "$out/fwd-matrix.log" | grep -vE "identical" | head -100
grep -c "identical" "$out/fwd-matrix.log"
